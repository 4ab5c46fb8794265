// Per-element evaluation of an energy written once over the scalar type: value (plain scalar), gradient
// (Dual), Hessian (Hyper, optionally projected to PSD) and Hessian-vector product (nested duals). The CPU
// loops and the CUDA kernels both call these, so the two backends run the same element math.
//
// An energy is a callable `template <class S> S operator()(const Vec<S, K * D>& x, const Data& data) const`
// (TG_HD for CUDA) where x holds the element's K vertices, D coordinates each (vertex-major), and Data is the
// element's constant data (NoElementData when none). Constants inside an energy are written as
// `scalar_of_t<S>(c)`; returning +infinity marks an inadmissible configuration (an inverted element).
#pragma once
#include <cstdint>

#include "tilegrad/ad/derivatives.h"
#include "tilegrad/ad/psd.h"

namespace tilegrad {

struct NoElementData {};

// Fixes the element data so that the helpers of derivatives.h see a function of x alone.
template <class Energy, class Data>
struct BoundEnergy {
  const Energy& energy;
  const Data& data;
  template <class S, int N>
  TG_HD S operator()(const Vec<S, N>& x) const {
    return energy(x, data);
  }
};

// The element's variables: x[v * D + c] for its K vertices.
template <int K, int D, class T>
TG_HD TG_INLINE Vec<T, K * D> gather_element(const T* x, const std::uint32_t* vertices) {
  Vec<T, K * D> r;
  TG_UNROLL for (int i = 0; i < K; ++i) {
    const std::size_t base = static_cast<std::size_t>(vertices[i]) * D;
    TG_UNROLL for (int c = 0; c < D; ++c) r[i * D + c] = x[base + c];
  }
  return r;
}

template <class T, int N, class Energy, class Data>
TG_HD TG_INLINE T element_value(const Energy& energy, const Vec<T, N>& x, const Data& data) {
  return energy(x, data);
}

template <class T, int N, class Energy, class Data>
TG_HD TG_INLINE GradientResult<T, N> element_gradient(const Energy& energy, const Vec<T, N>& x, const Data& data) {
  return value_gradient(BoundEnergy<Energy, Data>{energy, data}, x);
}

// Value, gradient and packed upper-triangle Hessian (Hyper::packed order).
template <class T, int N, class Energy, class Data>
TG_HD TG_INLINE Hyper<T, N> element_hyper(const Energy& energy, const Vec<T, N>& x, const Data& data) {
  return energy(seed_hypers(x), data);
}

// Replaces the packed Hessian of `h` by its projection onto eigenvalues >= min_eigenvalue.
template <class T, int N>
TG_HD void project_packed_psd(Hyper<T, N>& h, T min_eigenvalue) {
  Mat<T, N, N> m;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) m(i, j) = h.hess(i, j);
  if (!project_psd(m, min_eigenvalue)) return;
  for (int i = 0; i < N; ++i)
    for (int j = i; j < N; ++j) h.h[Hyper<T, N>::packed(i, j)] = m(i, j);
}

// Local Hessian (projected when asked), the form every assembly path consumes.
template <class T, int N, class Energy, class Data>
TG_HD TG_INLINE Hyper<T, N> element_hessian(const Energy& energy, const Vec<T, N>& x, const Data& data, bool project,
                                            T min_eigenvalue) {
  Hyper<T, N> h = element_hyper(energy, x, data);
  if (project) project_packed_psd(h, min_eigenvalue);
  return h;
}

// H v of the local Hessian, from the packed form.
template <class T, int N>
TG_HD TG_INLINE Vec<T, N> packed_multiply(const Hyper<T, N>& h, const Vec<T, N>& v) {
  Vec<T, N> r;
  TG_UNROLL for (int i = 0; i < N; ++i) {
    T s = T(0);
    TG_UNROLL for (int j = 0; j < N; ++j) s += h.hess(i, j) * v[j];
    r[i] = s;
  }
  return r;
}

// H v without the local Hessian: forward mode over forward mode. The inner dual carries the direction v, the
// outer one the gradient, so the outer partials' inner partials are (H v)_i, at O(N) cost per operation.
template <class T, int N, class Energy, class Data>
TG_HD Vec<T, N> element_hvp_direct(const Energy& energy, const Vec<T, N>& x, const Vec<T, N>& v, const Data& data) {
  using Inner = Dual<T, 1>;
  using Outer = Dual<Inner, N>;
  Vec<Outer, N> xs;
  TG_UNROLL for (int i = 0; i < N; ++i) {
    Inner xi(x[i]);
    xi.d[0] = v[i];
    xs[i] = Outer::variable(xi, i);
  }
  const Outer y = energy(xs, data);
  Vec<T, N> r;
  TG_UNROLL for (int i = 0; i < N; ++i) r[i] = y.d[i].d[0];
  return r;
}

// The HVP of the (optionally projected) local Hessian: projection needs the whole local matrix.
template <class T, int N, class Energy, class Data>
TG_HD TG_INLINE Vec<T, N> element_hvp(const Energy& energy, const Vec<T, N>& x, const Vec<T, N>& v, const Data& data,
                                      bool project, T min_eigenvalue) {
  if (!project) return element_hvp_direct(energy, x, v, data);
  return packed_multiply(element_hessian(energy, x, data, true, min_eigenvalue), v);
}

}  // namespace tilegrad
