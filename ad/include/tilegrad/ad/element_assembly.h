// How one element's results reach the global arrays, shared by the CPU loops and the CUDA kernels: the
// inputs of a term's pass, the Atomic scatter (an add operation per device) and the Owned record layout.
//
// Owned records are element-major inside a term's range: a vector result (gradient, HVP, Hessian diagonal)
// of element e occupies records[e * N .. e * N + N), a local Hessian records[e * P .. e * P + P) in packed
// upper-triangle order (Hyper::packed), N = K * D, P = N (N + 1) / 2. The owners (vertices, Hessian blocks)
// later gather their sources in a fixed order, which makes the result bitwise reproducible.
#pragma once
#include <cstdint>

#include "tilegrad/ad/element_energy.h"

namespace tilegrad {

// Deterministic energy totals: each term reports this many partial sums (unused ones 0), over a partition
// of its elements that depends on the element count only.
constexpr int kEnergyPartials = 1024;

// The pointers one pass over a term needs (all on the pass's device).
template <class T>
struct TermPass {
  const T* x = nullptr;          // [V * D]
  const T* direction = nullptr;  // [V * D], HVP only
  bool owned = false;            // write records (Owned) instead of adding into `out` (Atomic)
  T* out = nullptr;              // Atomic target: a [V * D] vector, or the CSR values of the Hessian
  T* records = nullptr;          // Owned target: this term's records
  const std::uint32_t* element_blocks = nullptr;     // Atomic Hessian: [E * K * K] block of (e, i, j)
  const std::uint32_t* block_row_offsets = nullptr;  // Atomic Hessian: [V + 1] blocks per vertex row
  bool project = false;          // clamp the local Hessian's eigenvalues at min_eigenvalue
  T min_eigenvalue = T(0);
  double* energy_partials = nullptr;  // [kEnergyPartials], or null when the value is not wanted
};

// One term's element inputs as the loops see them.
template <class T, int K, int D, class Energy, class Data>
struct ElementArgs {
  using Scalar = T;
  static constexpr int kArity = K, kDim = D, kLocal = K * D;
  Energy energy;
  const Data* data;
  std::size_t data_stride;  // 1: per-element data; 0: one Data shared by every element
  const std::uint32_t* elements;  // [count * K]
  std::size_t count;
  const T* x;

  TG_HD const Data& data_of(std::size_t e) const { return data[e * data_stride]; }
  TG_HD Vec<T, kLocal> variables(std::size_t e) const { return gather_element<K, D>(x, elements + e * K); }
};

// Element ranges of the deterministic energy partition: partial p covers [begin(p), begin(p + 1)).
TG_HD TG_INLINE std::size_t energy_partition_begin(std::size_t count, int parts, int p) {
  return count * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts);
}

template <class T, int N>
TG_HD TG_INLINE void write_vector_record(T* records, std::size_t e, const Vec<T, N>& v) {
  T* dst = records + e * N;
  TG_UNROLL for (int q = 0; q < N; ++q) dst[q] = v[q];
}

template <class T, int N>
TG_HD TG_INLINE void write_hessian_record(T* records, std::size_t e, const Hyper<T, N>& h) {
  T* dst = records + e * Hyper<T, N>::kPacked;
  TG_UNROLL for (int q = 0; q < Hyper<T, N>::kPacked; ++q) dst[q] = h.h[q];
}

// Atomic: out[v_i * D + c] += local[i * D + c].
template <int K, int D, class T, class Add>
TG_HD TG_INLINE void scatter_vector(const Vec<T, K * D>& local, const std::uint32_t* vertices, T* out, Add add) {
  TG_UNROLL for (int i = 0; i < K; ++i) {
    T* dst = out + static_cast<std::size_t>(vertices[i]) * D;
    TG_UNROLL for (int c = 0; c < D; ++c) add(dst + c, local[i * D + c]);
  }
}

// Atomic: adds the local Hessian into the CSR values. Vertex v's D rows all hold deg(v) blocks of D columns,
// so entry (v D + a, w D + b) of block k (row-major block index) sits at
// D^2 offsets[v] + a D deg(v) + (k - offsets[v]) D + b, with offsets = block_row_offsets.
template <int K, int D, class T, class Add>
TG_HD void scatter_hessian(const Hyper<T, K * D>& h, const std::uint32_t* vertices, const std::uint32_t* blocks,
                           const std::uint32_t* block_row_offsets, T* values, Add add) {
  TG_UNROLL for (int i = 0; i < K; ++i) {
    const std::uint32_t row_begin = block_row_offsets[vertices[i]];
    const std::size_t degree = block_row_offsets[vertices[i] + 1] - row_begin;
    const std::size_t base = static_cast<std::size_t>(D) * D * row_begin;
    TG_UNROLL for (int j = 0; j < K; ++j) {
      const std::size_t column = static_cast<std::size_t>(blocks[i * K + j] - row_begin) * D;
      TG_UNROLL for (int a = 0; a < D; ++a) {
        TG_UNROLL for (int b = 0; b < D; ++b)
          add(values + base + a * D * degree + column + b, h.hess(i * D + a, j * D + b));
      }
    }
  }
}

// What element e adds to the diagonal entries of its variables: H(q, q), plus H(q, q') for the other local
// slots q' of the same vertex when an element repeats a vertex (both slots then map to one variable).
template <int K, int D, class T>
TG_HD TG_INLINE Vec<T, K * D> local_diagonal(const Hyper<T, K * D>& h, const std::uint32_t* vertices) {
  Vec<T, K * D> d;
  TG_UNROLL for (int i = 0; i < K; ++i) {
    TG_UNROLL for (int a = 0; a < D; ++a) {
      T s = h.hess(i * D + a, i * D + a);
      TG_UNROLL for (int j = 0; j < K; ++j)
        if (j != i && vertices[j] == vertices[i]) s += h.hess(i * D + a, j * D + a);
      d[i * D + a] = s;
    }
  }
  return d;
}

}  // namespace tilegrad
