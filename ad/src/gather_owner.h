// Owned assembly, one owner at a time: the sum of the owner's sources in their stored order, shared by the
// CPU and CUDA backends. A source names an element record (its start in the record buffer), the element's
// arity and the local vertex pair (i, j) that lands on the owner.
#pragma once
#include <cstdint>

#include "tilegrad/core/common.h"

namespace tilegrad::element_gather {

TG_HD TG_INLINE std::uint64_t encode(std::uint64_t start, int arity, int i, int j) {
  return (start << 16) | (static_cast<std::uint64_t>(arity) << 8) | (static_cast<std::uint64_t>(i) << 4) |
         static_cast<std::uint64_t>(j);
}
TG_HD TG_INLINE std::uint64_t start_of(std::uint64_t s) { return s >> 16; }
TG_HD TG_INLINE int arity_of(std::uint64_t s) { return static_cast<int>((s >> 8) & 0xFF); }
TG_HD TG_INLINE int first_of(std::uint64_t s) { return static_cast<int>((s >> 4) & 0xF); }
TG_HD TG_INLINE int second_of(std::uint64_t s) { return static_cast<int>(s & 0xF); }
// Largest record start the encoding holds.
constexpr std::uint64_t kMaxStart = (std::uint64_t(1) << 48) - 1;

// Vertex owner: out[c] = sum over sources of records[start + i D + c].
template <int D, class T>
TG_HD void gather_vertex(const T* records, const std::uint64_t* sources, std::uint32_t begin, std::uint32_t end,
                         T* out) {
  T acc[D];
  TG_UNROLL for (int c = 0; c < D; ++c) acc[c] = T(0);
  for (std::uint32_t s = begin; s < end; ++s) {
    const std::uint64_t code = sources[s];
    const T* r = records + start_of(code) + first_of(code) * D;
    TG_UNROLL for (int c = 0; c < D; ++c) acc[c] += r[c];
  }
  TG_UNROLL for (int c = 0; c < D; ++c) out[c] = acc[c];
}

// Where block k of vertex row v puts entry (a, b): D^2 offsets[v] + a D deg(v) + (k - offsets[v]) D + b (the
// layout of scatter_hessian, offsets = block_row_offsets).
TG_HD TG_INLINE std::size_t block_entry(int dim, const std::uint32_t* block_row_offsets, std::uint32_t v,
                                       std::size_t block) {
  const std::uint32_t row_begin = block_row_offsets[v];
  return static_cast<std::size_t>(dim) * dim * row_begin + (block - row_begin) * dim;
}

// Hessian block owner: block `block` = (v, w), w >= v, and its transpose `transposed` = (w, v). Sums the (i, j)
// sub-blocks of the packed local Hessians of its sources and writes both blocks into the CSR values.
template <int D, class T>
TG_HD void gather_block(std::size_t block, std::size_t transposed, std::uint32_t v, std::uint32_t w,
                        const std::uint32_t* block_row_offsets, const T* records, const std::uint64_t* sources,
                        std::uint32_t begin, std::uint32_t end, T* values) {
  T acc[D * D];
  TG_UNROLL for (int k = 0; k < D * D; ++k) acc[k] = T(0);
  for (std::uint32_t s = begin; s < end; ++s) {
    const std::uint64_t code = sources[s];
    const T* r = records + start_of(code);
    const int n = arity_of(code) * D, i = first_of(code) * D, j = second_of(code) * D;
    TG_UNROLL for (int a = 0; a < D; ++a) {
      TG_UNROLL for (int b = 0; b < D; ++b) {
        const int p = i + a < j + b ? i + a : j + b, q = i + a < j + b ? j + b : i + a;
        acc[a * D + b] += r[p * n - p * (p - 1) / 2 + (q - p)];
      }
    }
  }
  const std::size_t v_degree = block_row_offsets[v + 1] - block_row_offsets[v];
  T* dst = values + block_entry(D, block_row_offsets, v, block);
  TG_UNROLL for (int a = 0; a < D; ++a) {
    TG_UNROLL for (int b = 0; b < D; ++b) dst[a * D * v_degree + b] = acc[a * D + b];
  }
  if (transposed == block) return;
  const std::size_t w_degree = block_row_offsets[w + 1] - block_row_offsets[w];
  T* tdst = values + block_entry(D, block_row_offsets, w, transposed);
  TG_UNROLL for (int a = 0; a < D; ++a) {
    TG_UNROLL for (int b = 0; b < D; ++b) tdst[b * D * w_degree + a] = acc[a * D + b];
  }
}

}  // namespace tilegrad::element_gather
