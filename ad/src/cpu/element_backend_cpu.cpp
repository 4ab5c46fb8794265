// CPU reference of the element-energy backend: dense vector maps and reductions, CSR products and masks, and
// the Owned gathers (OpenMP over entries, rows and owners).
#include <cstddef>

#include "../element_backend.h"
#include "../gather_owner.h"

namespace tilegrad::element_backend {
namespace {
// Below this many entries a loop runs on the calling thread: waking an OpenMP team costs more than the work,
// and on a busy machine much more.
constexpr std::ptrdiff_t kParallel = 1 << 14;
}  // namespace

template <class T>
void map_cpu(blas_math::MapOp op, std::size_t n, double alpha, const T* x, const T* y, const std::uint8_t* mask,
             T* out) {
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static) if (count > kParallel)
  for (std::ptrdiff_t i = 0; i < count; ++i)
    blas_math::map_entry(op, alpha, x, y, mask, out, static_cast<std::size_t>(i));
}

template <class T>
void reduce_cpu(blas_math::ReduceOp op, std::size_t n, const T* a, const T* b, double* partials) {
  const int parts = blas_math::parts_for(n);
#pragma omp parallel for schedule(static) if (n > static_cast<std::size_t>(kParallel))
  for (int p = 0; p < parts; ++p) {
    double s = 0.0;
    const std::size_t end = blas_math::part_begin(n, parts, p + 1);
    for (std::size_t i = blas_math::part_begin(n, parts, p); i < end; ++i)
      s = blas_math::combine(op, s, blas_math::reduce_entry(op, a, b, i));
    partials[p] = s;
  }
}

template <class T>
void csr_multiply_cpu(std::size_t rows, const std::uint32_t* row_offsets, const std::uint32_t* columns, const T* values,
                      const T* x, T* y) {
  const auto n = static_cast<std::ptrdiff_t>(rows);
#pragma omp parallel for schedule(static) if (n > kParallel / 16)
  for (std::ptrdiff_t r = 0; r < n; ++r) {
    T s = T(0);
    for (std::uint32_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k) s += values[k] * x[columns[k]];
    y[r] = s;
  }
}

template <class T>
void csr_diagonal_cpu(std::size_t rows, const std::uint32_t* diagonal, const T* values, T* d) {
  for (std::size_t r = 0; r < rows; ++r) d[r] = values[diagonal[r]];
}

template <class T>
void csr_mask_cpu(std::size_t rows, const std::uint32_t* row_offsets, const std::uint32_t* columns,
                  const std::uint8_t* fixed, T* values) {
  const auto n = static_cast<std::ptrdiff_t>(rows);
#pragma omp parallel for schedule(static) if (n > kParallel / 16)
  for (std::ptrdiff_t r = 0; r < n; ++r)
    for (std::uint32_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k)
      if (fixed[r] || fixed[columns[k]]) values[k] = columns[k] == static_cast<std::uint32_t>(r) ? T(1) : T(0);
}

template <int D, class T>
void gather_vertices_dim(const GatherMap& map, const T* records, T* out) {
  const auto n = static_cast<std::ptrdiff_t>(map.owners);
#pragma omp parallel for schedule(static) if (n > kParallel / 4)
  for (std::ptrdiff_t v = 0; v < n; ++v)
    for (int c = 0; c < D; ++c)
      out[v * D + c] = element_gather::gather_vertex_component<D>(c, records, map.sources, map.offsets[v],
                                                                  map.offsets[v + 1]);
}

template <class T>
void gather_vertices_cpu(int dim, const GatherMap& map, const T* records, T* out) {
  switch (dim) {
    case 1: return gather_vertices_dim<1>(map, records, out);
    case 2: return gather_vertices_dim<2>(map, records, out);
    case 3: return gather_vertices_dim<3>(map, records, out);
    default: return gather_vertices_dim<4>(map, records, out);
  }
}

template <int D, class T>
void gather_blocks_dim(const GatherMap& map, const BlockOwners& blocks, const T* records, T* values) {
  const auto n = static_cast<std::ptrdiff_t>(map.owners);
#pragma omp parallel for schedule(static) if (n > kParallel / 16)
  for (std::ptrdiff_t o = 0; o < n; ++o) {
    const std::uint32_t b = blocks.owner[o];
    for (int a = 0; a < D; ++a)
      for (int c = 0; c < D; ++c)
        element_gather::gather_block_entry<D>(a, c, b, blocks.transposed[o], blocks.rows[b], blocks.columns[b],
                                              blocks.row_offsets, records, map.sources, map.offsets[o],
                                              map.offsets[o + 1], values);
  }
}

template <class T>
void gather_blocks_cpu(int dim, const GatherMap& map, const BlockOwners& blocks, const T* records, T* values) {
  switch (dim) {
    case 1: return gather_blocks_dim<1>(map, blocks, records, values);
    case 2: return gather_blocks_dim<2>(map, blocks, records, values);
    case 3: return gather_blocks_dim<3>(map, blocks, records, values);
    default: return gather_blocks_dim<4>(map, blocks, records, values);
  }
}

#define TG_INSTANTIATE(T) TG_ELEMENT_BACKEND_FUNCTIONS(template, cpu, T, <T>)
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::element_backend
