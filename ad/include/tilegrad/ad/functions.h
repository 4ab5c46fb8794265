// The chain-rule table: every elementary function written once as (f, f', f'') of the value x and f,
// feeding both Dual (first order) and Hyper (second order).
//
// Conventions at non-differentiable points:
//   abs:   derivative 0 at x == 0 (the subgradient of smallest magnitude).
//   min/max: ties return the first argument, with its derivatives (see core/math.h).
//   clamp: derivative 1 for lo <= x <= hi (edges included), 0 outside.
//   sqrt:  at x == 0 the derivative is +inf, as the true one-sided derivative; callers avoid 0.
#pragma once
#include "tilegrad/ad/dual.h"
#include "tilegrad/ad/hyper.h"

namespace tilegrad {

#define TG_AD_UNARY(name, F, DF, D2F)                                 \
  template <class T, int N>                                           \
  TG_HD TG_INLINE Dual<T, N> name(const Dual<T, N>& a) {              \
    const T x = a.v;                                                  \
    const T f = F;                                                    \
    (void)x;                                                          \
    return chain(a, f, T(DF));                                        \
  }                                                                   \
  template <class T, int N>                                           \
  TG_HD TG_INLINE Hyper<T, N> name(const Hyper<T, N>& a) {            \
    const T x = a.v;                                                  \
    const T f = F;                                                    \
    (void)x;                                                          \
    return chain(a, f, T(DF), T(D2F));                                \
  }

TG_AD_UNARY(sqrt, sqrt(x), T(0.5) / f, T(-0.25) / (f * x))
TG_AD_UNARY(rsqrt, rsqrt(x), T(-0.5) * f / x, T(0.75) * f / (x * x))
TG_AD_UNARY(exp, exp(x), f, f)
TG_AD_UNARY(log, log(x), T(1) / x, T(-1) / (x * x))
TG_AD_UNARY(sin, sin(x), cos(x), -f)
TG_AD_UNARY(cos, cos(x), -sin(x), -f)
TG_AD_UNARY(tan, tan(x), T(1) + f * f, T(2) * f * (T(1) + f * f))
TG_AD_UNARY(asin, asin(x), rsqrt(T(1) - x * x), x * rsqrt(T(1) - x * x) / (T(1) - x * x))
TG_AD_UNARY(acos, acos(x), -rsqrt(T(1) - x * x), -x * rsqrt(T(1) - x * x) / (T(1) - x * x))
TG_AD_UNARY(atan, atan(x), T(1) / (T(1) + x * x), T(-2) * x / ((T(1) + x * x) * (T(1) + x * x)))
TG_AD_UNARY(tanh, tanh(x), T(1) - f * f, T(-2) * f * (T(1) - f * f))
TG_AD_UNARY(abs, abs(x), x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)), T(0))
TG_AD_UNARY(sigmoid, sigmoid(x), f * (T(1) - f), f * (T(1) - f) * (T(1) - T(2) * f))
#undef TG_AD_UNARY

// pow with a constant exponent.
template <class T, int N>
TG_HD TG_INLINE Dual<T, N> pow(const Dual<T, N>& a, T p) {
  return chain(a, pow(a.v, p), p * pow(a.v, p - T(1)));
}
template <class T, int N>
TG_HD TG_INLINE Hyper<T, N> pow(const Hyper<T, N>& a, T p) {
  return chain(a, pow(a.v, p), p * pow(a.v, p - T(1)), p * (p - T(1)) * pow(a.v, p - T(2)));
}

// Binary functions: partials written once, shared by both orders through BinaryPartials.
template <class T>
struct BinaryPartials {
  T f, fa, fb, faa, fab, fbb;
};
template <class T>
TG_HD TG_INLINE BinaryPartials<T> pow_partials(T a, T b) {
  const T f = pow(a, b), la = log(a), amb = pow(a, b - T(1));
  return {f, b * amb, f * la, b * (b - T(1)) * pow(a, b - T(2)), amb * (T(1) + b * la), f * la * la};
}
// atan2(y, x): a = y, b = x.
template <class T>
TG_HD TG_INLINE BinaryPartials<T> atan2_partials(T y, T x) {
  const T r2 = x * x + y * y, r4 = r2 * r2;
  return {atan2(y, x), x / r2, -y / r2, T(-2) * x * y / r4, (y * y - x * x) / r4, T(2) * x * y / r4};
}

#define TG_AD_BINARY(name, PARTIALS)                                                              \
  template <class T, int N>                                                                       \
  TG_HD TG_INLINE Dual<T, N> name(const Dual<T, N>& a, const Dual<T, N>& b) {                     \
    const BinaryPartials<T> p = PARTIALS(a.v, b.v);                                               \
    return chain2(a, b, p.f, p.fa, p.fb);                                                         \
  }                                                                                               \
  template <class T, int N>                                                                       \
  TG_HD TG_INLINE Hyper<T, N> name(const Hyper<T, N>& a, const Hyper<T, N>& b) {                  \
    const BinaryPartials<T> p = PARTIALS(a.v, b.v);                                               \
    return chain2(a, b, p.f, p.fa, p.fb, p.faa, p.fab, p.fbb);                                    \
  }
// A constant as the first argument.
#define TG_AD_BINARY_CONST_FIRST(name)                                                            \
  template <class T, int N>                                                                       \
  TG_HD TG_INLINE Dual<T, N> name(T a, const Dual<T, N>& b) { return name(Dual<T, N>(a), b); }    \
  template <class T, int N>                                                                       \
  TG_HD TG_INLINE Hyper<T, N> name(T a, const Hyper<T, N>& b) { return name(Hyper<T, N>(a), b); }
// A constant as the second argument (pow has its own cheaper constant-exponent form above).
#define TG_AD_BINARY_CONST_SECOND(name)                                                           \
  template <class T, int N>                                                                       \
  TG_HD TG_INLINE Dual<T, N> name(const Dual<T, N>& a, T b) { return name(a, Dual<T, N>(b)); }    \
  template <class T, int N>                                                                       \
  TG_HD TG_INLINE Hyper<T, N> name(const Hyper<T, N>& a, T b) { return name(a, Hyper<T, N>(b)); }

TG_AD_BINARY(pow, pow_partials)
TG_AD_BINARY_CONST_FIRST(pow)
TG_AD_BINARY(atan2, atan2_partials)
TG_AD_BINARY_CONST_FIRST(atan2)
TG_AD_BINARY_CONST_SECOND(atan2)
#undef TG_AD_BINARY
#undef TG_AD_BINARY_CONST_FIRST
#undef TG_AD_BINARY_CONST_SECOND

// fma for derivative numbers: a b + c (the value is fused; derivatives follow the product rule).
template <class T, int N>
TG_HD TG_INLINE Dual<T, N> fma(const Dual<T, N>& a, const Dual<T, N>& b, const Dual<T, N>& c) {
  Dual<T, N> r = a * b + c;
  r.v = fma(a.v, b.v, c.v);
  return r;
}
template <class T, int N>
TG_HD TG_INLINE Dual<T, N> fma(T a, const Dual<T, N>& b, const Dual<T, N>& c) {
  Dual<T, N> r = a * b + c;
  r.v = fma(a, b.v, c.v);
  return r;
}
template <class T, int N>
TG_HD TG_INLINE Hyper<T, N> fma(T a, const Hyper<T, N>& b, const Hyper<T, N>& c) {
  Hyper<T, N> r = a * b + c;
  r.v = fma(a, b.v, c.v);
  return r;
}

// clamp with constant bounds: derivative passes through on [lo, hi].
template <class T, int N>
TG_HD TG_INLINE Dual<T, N> clamp(const Dual<T, N>& x, T lo, T hi) {
  return x < lo ? Dual<T, N>(lo) : (hi < x ? Dual<T, N>(hi) : x);
}
template <class T, int N>
TG_HD TG_INLINE Hyper<T, N> clamp(const Hyper<T, N>& x, T lo, T hi) {
  return x < lo ? Hyper<T, N>(lo) : (hi < x ? Hyper<T, N>(hi) : x);
}

// The scalar type underneath any number used in per-element code.
template <class S>
struct ScalarOf {
  using type = S;
};
template <class T, int N>
struct ScalarOf<Dual<T, N>> {
  using type = T;
};
template <class T, int N>
struct ScalarOf<Hyper<T, N>> {
  using type = T;
};
template <class S>
using scalar_of_t = typename ScalarOf<S>::type;

}  // namespace tilegrad
