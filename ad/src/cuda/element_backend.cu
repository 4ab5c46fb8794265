// CUDA backend of the element-energy layer: dense vector maps and reductions, CSR products and masks, and the
// Owned gathers (one thread per entry, row or owner; the per-entry math is shared with the CPU backend).
#include <cstdint>

#include "../element_backend.h"
#include "../gather_owner.h"
#include "tilegrad/core/cuda/block_reduce.cuh"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::element_backend {
namespace {

using cuda::global_thread;
constexpr unsigned kBlock = 256;
constexpr int kReduceBlock = 256;

template <class T>
__global__ void map_kernel(blas_math::MapOp op, std::size_t n, double alpha, const T* x, const T* y,
                           const std::uint8_t* mask, T* out) {
  const std::size_t i = global_thread();
  if (i < n) blas_math::map_entry(op, alpha, x, y, mask, out, i);
}

struct Combine {
  blas_math::ReduceOp op;
  __device__ double operator()(double a, double b) const { return blas_math::combine(op, a, b); }
};

template <class T>
__global__ void __launch_bounds__(kReduceBlock) reduce_kernel(blas_math::ReduceOp op, std::size_t n, const T* a,
                                                              const T* b, int parts, double* partials) {
  const int p = static_cast<int>(blockIdx.x);
  const std::size_t end = blas_math::part_begin(n, parts, p + 1);
  double s = 0.0;
  for (std::size_t i = blas_math::part_begin(n, parts, p) + threadIdx.x; i < end; i += kReduceBlock)
    s = blas_math::combine(op, s, blas_math::reduce_entry(op, a, b, i));
  const double r = cuda::block_reduce<kReduceBlock>(s, Combine{op});
  if (threadIdx.x == 0) partials[p] = r;
}

template <class T>
__global__ void csr_multiply_kernel(std::size_t rows, const std::uint32_t* row_offsets, const std::uint32_t* columns,
                                    const T* values, const T* x, T* y) {
  const std::size_t r = global_thread();
  if (r >= rows) return;
  T s = T(0);
  for (std::uint32_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k) s += values[k] * x[columns[k]];
  y[r] = s;
}

template <class T>
__global__ void csr_diagonal_kernel(std::size_t rows, const std::uint32_t* diagonal, const T* values, T* d) {
  const std::size_t r = global_thread();
  if (r < rows) d[r] = values[diagonal[r]];
}

template <class T>
__global__ void csr_mask_kernel(std::size_t rows, const std::uint32_t* row_offsets, const std::uint32_t* columns,
                                const std::uint8_t* fixed, T* values) {
  const std::size_t r = global_thread();
  if (r >= rows) return;
  for (std::uint32_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k)
    if (fixed[r] || fixed[columns[k]]) values[k] = columns[k] == r ? T(1) : T(0);
}

// One thread per component of a vertex.
template <int D, class T>
__global__ void gather_vertices_kernel(GatherMap map, const T* records, T* out) {
  const std::size_t t = global_thread(), v = t / D;
  if (v < map.owners)
    out[t] = element_gather::gather_vertex_component<D>(static_cast<int>(t % D), records, map.sources, map.offsets[v],
                                                        map.offsets[v + 1]);
}

// One thread per entry of an owner's D x D block.
template <int D, class T>
__global__ void gather_blocks_kernel(GatherMap map, BlockOwners blocks, const T* records, T* values) {
  const std::size_t t = global_thread(), o = t / (D * D);
  if (o >= map.owners) return;
  const int entry = static_cast<int>(t % (D * D));
  const std::uint32_t b = blocks.owner[o];
  element_gather::gather_block_entry<D>(entry / D, entry % D, b, blocks.transposed[o], blocks.rows[b],
                                        blocks.columns[b], blocks.row_offsets, records, map.sources, map.offsets[o],
                                        map.offsets[o + 1], values);
}

}  // namespace

template <class T>
void map_cuda(blas_math::MapOp op, std::size_t n, double alpha, const T* x, const T* y, const std::uint8_t* mask,
              T* out) {
  cuda::launch(map_kernel<T>, n, kBlock, nullptr, op, n, alpha, x, y, mask, out);
}

template <class T>
void reduce_cuda(blas_math::ReduceOp op, std::size_t n, const T* a, const T* b, double* partials) {
  const int parts = blas_math::parts_for(n);
  reduce_kernel<T><<<parts, kReduceBlock>>>(op, n, a, b, parts, partials);
  TG_CUDA_CHECK_LAUNCH();
}

template <class T>
void csr_multiply_cuda(std::size_t rows, const std::uint32_t* row_offsets, const std::uint32_t* columns,
                       const T* values, const T* x, T* y) {
  cuda::launch(csr_multiply_kernel<T>, rows, kBlock, nullptr, rows, row_offsets, columns, values, x, y);
}

template <class T>
void csr_diagonal_cuda(std::size_t rows, const std::uint32_t* diagonal, const T* values, T* d) {
  cuda::launch(csr_diagonal_kernel<T>, rows, kBlock, nullptr, rows, diagonal, values, d);
}

template <class T>
void csr_mask_cuda(std::size_t rows, const std::uint32_t* row_offsets, const std::uint32_t* columns,
                   const std::uint8_t* fixed, T* values) {
  cuda::launch(csr_mask_kernel<T>, rows, kBlock, nullptr, rows, row_offsets, columns, fixed, values);
}

template <class T>
void gather_vertices_cuda(int dim, const GatherMap& map, const T* records, T* out) {
  switch (dim) {
    case 1: return cuda::launch(gather_vertices_kernel<1, T>, map.owners, kBlock, nullptr, map, records, out);
    case 2: return cuda::launch(gather_vertices_kernel<2, T>, map.owners * 2, kBlock, nullptr, map, records, out);
    case 3: return cuda::launch(gather_vertices_kernel<3, T>, map.owners * 3, kBlock, nullptr, map, records, out);
    default: return cuda::launch(gather_vertices_kernel<4, T>, map.owners * 4, kBlock, nullptr, map, records, out);
  }
}

template <class T>
void gather_blocks_cuda(int dim, const GatherMap& map, const BlockOwners& blocks, const T* records, T* values) {
  switch (dim) {
    case 1: return cuda::launch(gather_blocks_kernel<1, T>, map.owners, kBlock, nullptr, map, blocks, records, values);
    case 2: return cuda::launch(gather_blocks_kernel<2, T>, map.owners * 4, kBlock, nullptr, map, blocks, records, values);
    case 3: return cuda::launch(gather_blocks_kernel<3, T>, map.owners * 9, kBlock, nullptr, map, blocks, records, values);
    default:
      return cuda::launch(gather_blocks_kernel<4, T>, map.owners * 16, kBlock, nullptr, map, blocks, records, values);
  }
}

#define TG_INSTANTIATE(T) TG_ELEMENT_BACKEND_FUNCTIONS(template, cuda, T, <T>)
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::element_backend
