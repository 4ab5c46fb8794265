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

// Component c of a vertex owner: sum over its sources of records[start + i D + c], in their stored order. The CUDA
// gather runs one thread per component, the CPU loops over the components; the sums are the same.
template <int D, class T>
TG_HD T gather_vertex_component(int c, const T* records, const std::uint64_t* sources, std::uint32_t begin,
                                std::uint32_t end) {
  T acc = T(0);
  for (std::uint32_t s = begin; s < end; ++s) {
    const std::uint64_t code = sources[s];
    acc += records[start_of(code) + first_of(code) * D + c];
  }
  return acc;
}

// Where block k of vertex row v puts entry (a, b): D^2 offsets[v] + a D deg(v) + (k - offsets[v]) D + b (the
// layout of scatter_hessian, offsets = block_row_offsets).
TG_HD TG_INLINE std::size_t block_entry(int dim, const std::uint32_t* block_row_offsets, std::uint32_t v,
                                       std::size_t block) {
  const std::uint32_t row_begin = block_row_offsets[v];
  return static_cast<std::size_t>(dim) * dim * row_begin + (block - row_begin) * dim;
}

// Entry (a, b) of Hessian block owner `block` = (v, w), w >= v, and of its transpose `transposed` = (w, v): the sum
// of entry (a, b) of the (i, j) sub-blocks of the packed local Hessians of its sources, in their stored order,
// written into both blocks of the CSR values. The CUDA gather runs one thread per entry (the D x D threads of an
// owner read neighbouring values of each record), the CPU loops over the entries; the sums are the same.
template <int D, class T>
TG_HD void gather_block_entry(int a, int b, std::size_t block, std::size_t transposed, std::uint32_t v, std::uint32_t w,
                              const std::uint32_t* block_row_offsets, const T* records, const std::uint64_t* sources,
                              std::uint32_t begin, std::uint32_t end, T* values) {
  T acc = T(0);
  for (std::uint32_t s = begin; s < end; ++s) {
    const std::uint64_t code = sources[s];
    const T* r = records + start_of(code);
    const int n = arity_of(code) * D, i = first_of(code) * D + a, j = second_of(code) * D + b;
    const int p = i < j ? i : j, q = i < j ? j : i;
    acc += r[p * n - p * (p - 1) / 2 + (q - p)];
  }
  const std::size_t v_degree = block_row_offsets[v + 1] - block_row_offsets[v];
  values[block_entry(D, block_row_offsets, v, block) + a * D * v_degree + b] = acc;
  if (transposed == block) return;
  const std::size_t w_degree = block_row_offsets[w + 1] - block_row_offsets[w];
  values[block_entry(D, block_row_offsets, w, transposed) + b * D * w_degree + a] = acc;
}

}  // namespace tilegrad::element_gather
