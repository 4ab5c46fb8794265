// Internal: the CPU and CUDA implementations behind vector_ops.h, sparse_matrix.h and the Owned gathers of
// ElementProblem. Arguments are validated by the callers; pointers live on the backend's device.
#pragma once
#include <cstddef>
#include <cstdint>

#include "blas_math.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::element_backend {

// What a CUDA request meets in a build without the CUDA backend.
[[noreturn]] inline void no_cuda_backend(const char* what) {
  throw Unsupported(detail::concat(what, " requested but this tilegrad build has no CUDA backend"));
}

struct GatherMap {
  const std::uint32_t* offsets;   // [owners + 1]
  const std::uint64_t* sources;   // encoded as in gather_owner.h
  std::size_t owners;
};

struct BlockOwners {
  const std::uint32_t* owner;       // [owners] block index
  const std::uint32_t* transposed;  // [owners] block index of the transpose
  const std::uint32_t* rows;        // [blocks] row vertex
  const std::uint32_t* columns;     // [blocks] column vertex
  const std::uint32_t* row_offsets; // [V + 1] blocks per vertex row
};

// The functions of one backend (suffix cpu or cuda), written once for their declarations here and for each
// backend's explicit instantiations: HEAD is `template <class T>` and TARGS empty to declare them,
// HEAD `template` and TARGS `<float>` (T float) to instantiate them.
#define TG_ELEMENT_BACKEND_FUNCTIONS(HEAD, suffix, T, TARGS)                                                    \
  HEAD void map_##suffix TARGS(blas_math::MapOp op, std::size_t n, double alpha, const T* x, const T* y,         \
                               const std::uint8_t* mask, T* out);                                              \
  /* Partial results of the fixed partition (blas_math::parts_for(n) of them) into partials. */                 \
  HEAD void reduce_##suffix TARGS(blas_math::ReduceOp op, std::size_t n, const T* a, const T* b,                \
                                  double* partials);                                                          \
  HEAD void csr_multiply_##suffix TARGS(std::size_t rows, const std::uint32_t* row_offsets,                      \
                                        const std::uint32_t* columns, const T* values, const T* x, T* y);     \
  HEAD void csr_diagonal_##suffix TARGS(std::size_t rows, const std::uint32_t* diagonal, const T* values, T* d); \
  HEAD void csr_mask_##suffix TARGS(std::size_t rows, const std::uint32_t* row_offsets,                          \
                                    const std::uint32_t* columns, const std::uint8_t* fixed, T* values);      \
  HEAD void gather_vertices_##suffix TARGS(int dim, const GatherMap& map, const T* records, T* out);             \
  /* Owner o writes block blocks.owner[o] and its transpose blocks.transposed[o]. */                             \
  HEAD void gather_blocks_##suffix TARGS(int dim, const GatherMap& map, const BlockOwners& blocks,               \
                                         const T* records, T* values);

TG_ELEMENT_BACKEND_FUNCTIONS(template <class T>, cpu, T, )
#if TILEGRAD_WITH_CUDA
TG_ELEMENT_BACKEND_FUNCTIONS(template <class T>, cuda, T, )
#endif

}  // namespace tilegrad::element_backend
