// Hyper<T, N>: second-order forward-mode number carrying value, gradient and the symmetric Hessian
// (packed upper triangle) with respect to N variables; host and device.
#pragma once
#include "tilegrad/ad/number_ops.h"
#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad {

// Its parts here; the rest of the arithmetic and the comparisons (value only) from NumberOps.
template <class T, int N>
struct Hyper : NumberOps<Hyper<T, N>, T> {
  static constexpr int kPacked = N * (N + 1) / 2;
  // Index of (i, j), i <= j, in the packed upper triangle (row-major).
  TG_HD static constexpr int packed(int i, int j) { return i * N - i * (i - 1) / 2 + (j - i); }

  T v;           // value
  T g[N];        // gradient
  T h[kPacked];  // Hessian, upper triangle

  TG_HD Hyper() : Hyper(T(0)) {}
  TG_HD Hyper(T value) : v(value) {  // NOLINT: implicit, constants mix freely
    TG_UNROLL for (int i = 0; i < N; ++i) g[i] = T(0);
    TG_UNROLL for (int k = 0; k < kPacked; ++k) h[k] = T(0);
  }
  TG_HD static Hyper variable(T value, int i) {
    Hyper r(value);
    r.g[i] = T(1);
    return r;
  }
  // Hessian entry (either order of indices).
  TG_HD T hess(int i, int j) const { return i <= j ? h[packed(i, j)] : h[packed(j, i)]; }

  // f(a's part, b's part) for the value, the gradient and the Hessian, for NumberOps' linear operations.
  template <class F>
  TG_HD static void zip(Hyper& a, const Hyper& b, F f) {
    f(a.v, b.v);
    TG_UNROLL for (int i = 0; i < N; ++i) f(a.g[i], b.g[i]);
    TG_UNROLL for (int k = 0; k < kPacked; ++k) f(a.h[k], b.h[k]);
  }

  TG_HD friend Hyper operator*(const Hyper& a, const Hyper& b) {
    Hyper r;
    r.v = a.v * b.v;
    TG_UNROLL for (int i = 0; i < N; ++i) r.g[i] = a.g[i] * b.v + a.v * b.g[i];
    TG_UNROLL for (int i = 0; i < N; ++i) {
      TG_UNROLL for (int j = i; j < N; ++j) {
        const int k = packed(i, j);
        r.h[k] = a.h[k] * b.v + a.v * b.h[k] + a.g[i] * b.g[j] + b.g[i] * a.g[j];
      }
    }
    return r;
  }
  TG_HD friend Hyper operator/(const Hyper& a, const Hyper& b) { return a * reciprocal(b); }
  TG_HD friend Hyper operator/(T a, const Hyper& b) { return reciprocal(b) * a; }

  TG_HD friend Hyper reciprocal(const Hyper& b) {
    const T inv = T(1) / b.v;
    return chain(b, inv, -inv * inv, T(2) * inv * inv * inv);
  }

  // Second-order chain rule: r = f(a), f' = df, f'' = d2f:  H_r = df H_a + d2f g_a g_a^T.
  TG_HD friend Hyper chain(const Hyper& a, T f, T df, T d2f) {
    Hyper r;
    r.v = f;
    TG_UNROLL for (int i = 0; i < N; ++i) r.g[i] = df * a.g[i];
    TG_UNROLL for (int i = 0; i < N; ++i) {
      TG_UNROLL for (int j = i; j < N; ++j) {
        const int k = packed(i, j);
        r.h[k] = df * a.h[k] + d2f * a.g[i] * a.g[j];
      }
    }
    return r;
  }
  // Binary second-order chain rule for r = f(a, b).
  TG_HD friend Hyper chain2(const Hyper& a, const Hyper& b, T f, T fa, T fb, T faa, T fab, T fbb) {
    Hyper r;
    r.v = f;
    TG_UNROLL for (int i = 0; i < N; ++i) r.g[i] = fa * a.g[i] + fb * b.g[i];
    TG_UNROLL for (int i = 0; i < N; ++i) {
      TG_UNROLL for (int j = i; j < N; ++j) {
        const int k = packed(i, j);
        r.h[k] = fa * a.h[k] + fb * b.h[k] + faa * a.g[i] * a.g[j] + fbb * b.g[i] * b.g[j] +
                 fab * (a.g[i] * b.g[j] + b.g[i] * a.g[j]);
      }
    }
    return r;
  }
};

template <class T, int N>
TG_HD TG_INLINE bool is_finite(const Hyper<T, N>& a) {
  bool ok = is_finite(a.v);
  TG_UNROLL for (int i = 0; i < N; ++i) ok = ok && is_finite(a.g[i]);
  TG_UNROLL for (int k = 0; k < Hyper<T, N>::kPacked; ++k) ok = ok && is_finite(a.h[k]);
  return ok;
}

}  // namespace tilegrad
