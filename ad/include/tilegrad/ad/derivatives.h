// Local derivative helpers for small fixed-size functions written once as templates over the scalar:
// Jacobian, vector-Jacobian product, value + gradient (+ Hessian). Host and device.
//
// A function argument `f` is a generic callable: Vec<S, N> -> Vec<S, M> (Jacobian, VJP) or
// Vec<S, N> -> S (gradient, Hessian), for every scalar S the helper instantiates it with.
#pragma once
#include <utility>

#include "tilegrad/ad/functions.h"
#include "tilegrad/core/vec.h"

namespace tilegrad {

template <class T, int N>
TG_HD Vec<Dual<T, N>, N> seed_duals(const Vec<T, N>& x) {
  Vec<Dual<T, N>, N> r;
  TG_UNROLL for (int i = 0; i < N; ++i) r[i] = Dual<T, N>::variable(x[i], i);
  return r;
}
template <class T, int N>
TG_HD Vec<Hyper<T, N>, N> seed_hypers(const Vec<T, N>& x) {
  Vec<Hyper<T, N>, N> r;
  TG_UNROLL for (int i = 0; i < N; ++i) r[i] = Hyper<T, N>::variable(x[i], i);
  return r;
}

template <class T, int N, int M>
struct JacobianResult {
  Vec<T, M> value;
  Mat<T, M, N> jacobian;  // d value_i / d x_j
};

template <class T, int N, class F>
TG_HD auto jacobian(F&& f, const Vec<T, N>& x) {
  auto y = f(seed_duals(x));
  constexpr int M = decltype(y)::size();
  JacobianResult<T, N, M> r;
  TG_UNROLL for (int i = 0; i < M; ++i) {
    r.value[i] = y[i].v;
    TG_UNROLL for (int j = 0; j < N; ++j) r.jacobian(i, j) = y[i].d[j];
  }
  return r;
}

template <class T, int N, int M>
struct VjpResult {
  Vec<T, M> value;
  Vec<T, N> vjp;  // w^T J
};

// w^T (d f / d x): the pull-back of an output adjoint w to the inputs.
template <class T, int N, int M, class F>
TG_HD VjpResult<T, N, M> vjp(F&& f, const Vec<T, N>& x, const Vec<T, M>& w) {
  auto y = f(seed_duals(x));
  static_assert(decltype(y)::size() == M, "adjoint size must match the output size");
  VjpResult<T, N, M> r;
  TG_UNROLL for (int j = 0; j < N; ++j) r.vjp[j] = T(0);
  TG_UNROLL for (int i = 0; i < M; ++i) {
    r.value[i] = y[i].v;
    TG_UNROLL for (int j = 0; j < N; ++j) r.vjp[j] += w[i] * y[i].d[j];
  }
  return r;
}

template <class T, int N>
struct GradientResult {
  T value;
  Vec<T, N> gradient;
};

template <class T, int N, class F>
TG_HD GradientResult<T, N> value_gradient(F&& f, const Vec<T, N>& x) {
  const Dual<T, N> y = f(seed_duals(x));
  GradientResult<T, N> r;
  r.value = y.v;
  TG_UNROLL for (int j = 0; j < N; ++j) r.gradient[j] = y.d[j];
  return r;
}

template <class T, int N>
struct HessianResult {
  T value;
  Vec<T, N> gradient;
  Mat<T, N, N> hessian;  // symmetric, both triangles filled
};

template <class T, int N, class F>
TG_HD HessianResult<T, N> value_gradient_hessian(F&& f, const Vec<T, N>& x) {
  const Hyper<T, N> y = f(seed_hypers(x));
  HessianResult<T, N> r;
  r.value = y.v;
  TG_UNROLL for (int i = 0; i < N; ++i) {
    r.gradient[i] = y.g[i];
    TG_UNROLL for (int j = 0; j < N; ++j) r.hessian(i, j) = y.hess(i, j);
  }
  return r;
}

}  // namespace tilegrad
