// Dual<T, N>: forward-mode number carrying a value and N partial derivatives; host and device.
#pragma once
#include "tilegrad/ad/number_ops.h"
#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad {

// Its parts here; the rest of the arithmetic and the comparisons (value only) from NumberOps.
template <class T, int N>
struct Dual : NumberOps<Dual<T, N>, T> {
  T v;     // value
  T d[N];  // partials d v / d x_i

  TG_HD Dual() : Dual(T(0)) {}
  TG_HD Dual(T value) : v(value) {  // NOLINT: implicit, constants mix freely with duals
    TG_UNROLL for (int i = 0; i < N; ++i) d[i] = T(0);
  }
  // The i-th independent variable with value `value`.
  TG_HD static Dual variable(T value, int i) {
    Dual r(value);
    r.d[i] = T(1);
    return r;
  }

  // f(a's part, b's part) for the value and every partial, for NumberOps' linear operations.
  template <class F>
  TG_HD static void zip(Dual& a, const Dual& b, F f) {
    f(a.v, b.v);
    TG_UNROLL for (int i = 0; i < N; ++i) f(a.d[i], b.d[i]);
  }

  TG_HD friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v * b.v;
    TG_UNROLL for (int i = 0; i < N; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    return r;
  }
  TG_HD friend Dual operator/(const Dual& a, const Dual& b) {
    Dual r;
    const T inv = T(1) / b.v;
    r.v = a.v * inv;
    TG_UNROLL for (int i = 0; i < N; ++i) r.d[i] = (a.d[i] - r.v * b.d[i]) * inv;
    return r;
  }
  TG_HD friend Dual operator/(T a, const Dual& b) {
    Dual r;
    const T inv = T(1) / b.v;
    r.v = a * inv;
    const T s = -r.v * inv;
    TG_UNROLL for (int i = 0; i < N; ++i) r.d[i] = s * b.d[i];
    return r;
  }
};

// First-order chain rule: r = f(a) with f'(a.v) = df.
template <class T, int N>
TG_HD TG_INLINE Dual<T, N> chain(const Dual<T, N>& a, T f, T df) {
  Dual<T, N> r;
  r.v = f;
  TG_UNROLL for (int i = 0; i < N; ++i) r.d[i] = df * a.d[i];
  return r;
}

// Binary chain rule: r = f(a, b) with partials fa, fb.
template <class T, int N>
TG_HD TG_INLINE Dual<T, N> chain2(const Dual<T, N>& a, const Dual<T, N>& b, T f, T fa, T fb) {
  Dual<T, N> r;
  r.v = f;
  TG_UNROLL for (int i = 0; i < N; ++i) r.d[i] = fa * a.d[i] + fb * b.d[i];
  return r;
}

template <class T, int N>
TG_HD TG_INLINE bool is_finite(const Dual<T, N>& a) {
  bool ok = is_finite(a.v);
  TG_UNROLL for (int i = 0; i < N; ++i) ok = ok && is_finite(a.d[i]);
  return ok;
}

}  // namespace tilegrad
