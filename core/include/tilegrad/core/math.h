// Scalar math for float and double, identical in host and device code. The AD layer adds overloads of the
// same names for its derivative types, so per-element code calls them unqualified inside namespace tilegrad.
#pragma once
#include <cmath>
#include <type_traits>

#include "tilegrad/core/common.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/portable_math.h"

namespace tilegrad {

// TILEGRAD_PORTABLE_MATH builds (CMake option): float exp and log by portable_math.h and rsqrt as 1 / sqrt on
// every backend, so that host and device code compute the same bits (with nvcc's --fmad=false, which the option
// sets). Otherwise each backend's own library functions (and the device's rsqrt approximation).
inline constexpr bool kPortableMath = TILEGRAD_PORTABLE_MATH != 0;

// The scalar functions are templates restricted to float and double: inside namespace tilegrad they are
// found first; outside it (with a using-directive) they do not clash with the C library's ::sin(double).
template <class T>
using if_real_t = std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, double>, int>;

#define TG_SCALAR_UNARY(name, ffun, dfun)          \
  template <class T, if_real_t<T> = 0>             \
  TG_HD TG_INLINE T name(T x) {                    \
    if constexpr (std::is_same_v<T, float>) {      \
      return ffun(x);                              \
    } else {                                       \
      return dfun(x);                              \
    }                                              \
  }

TG_SCALAR_UNARY(sqrt, ::sqrtf, ::sqrt)
TG_SCALAR_UNARY(sin, ::sinf, ::sin)
TG_SCALAR_UNARY(cos, ::cosf, ::cos)
TG_SCALAR_UNARY(tan, ::tanf, ::tan)
TG_SCALAR_UNARY(asin, ::asinf, ::asin)
TG_SCALAR_UNARY(acos, ::acosf, ::acos)
TG_SCALAR_UNARY(atan, ::atanf, ::atan)
TG_SCALAR_UNARY(tanh, ::tanhf, ::tanh)
TG_SCALAR_UNARY(abs, ::fabsf, ::fabs)
#undef TG_SCALAR_UNARY

// exp and log: float from portable_math.h in portable builds.
#define TG_SCALAR_PORTABLE(name)                    \
  template <class T, if_real_t<T> = 0>              \
  TG_HD TG_INLINE T name(T x) {                     \
    if constexpr (!std::is_same_v<T, float>) {      \
      return ::name(x);                             \
    } else if constexpr (kPortableMath) {           \
      return portable::name(x);                     \
    } else {                                        \
      return ::name##f(x);                          \
    }                                               \
  }
TG_SCALAR_PORTABLE(exp)
TG_SCALAR_PORTABLE(log)
#undef TG_SCALAR_PORTABLE

template <class T, if_real_t<T> = 0>
TG_HD TG_INLINE T rsqrt(T x) {
#if TG_DEVICE_PASS
  if constexpr (kPortableMath) {
    return T(1) / sqrt(x);
  } else if constexpr (std::is_same_v<T, float>) {
    return ::rsqrtf(x);
  } else {
    return ::rsqrt(x);
  }
#else
  return T(1) / sqrt(x);
#endif
}
template <class T, if_real_t<T> = 0>
TG_HD TG_INLINE T pow(T x, T y) {
  if constexpr (std::is_same_v<T, float>) {
    return ::powf(x, y);
  } else {
    return ::pow(x, y);
  }
}
// Fused multiply-add, rounded once on every backend: results computed with it are identical on the CPU and
// the GPU (where the compiler would otherwise contract some expressions and not others).
template <class T, if_real_t<T> = 0>
TG_HD TG_INLINE T fma(T a, T b, T c) {
  if constexpr (std::is_same_v<T, float>) {
    return ::fmaf(a, b, c);
  } else {
    return ::fma(a, b, c);
  }
}

template <class T, if_real_t<T> = 0>
TG_HD TG_INLINE T atan2(T y, T x) {
  if constexpr (std::is_same_v<T, float>) {
    return ::atan2f(y, x);
  } else {
    return ::atan2(y, x);
  }
}

// min/max/clamp return the first argument on ties; clamp keeps x on the edges (lo <= x <= hi).
// By value: taking references would odr-use constexpr arguments, which device code cannot do.
template <class T>
TG_HD TG_INLINE T min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
TG_HD TG_INLINE T max(T a, T b) {
  return a < b ? b : a;
}
TG_HD TG_INLINE float clamp(float x, float lo, float hi) { return x < lo ? lo : (hi < x ? hi : x); }
TG_HD TG_INLINE double clamp(double x, double lo, double hi) { return x < lo ? lo : (hi < x ? hi : x); }

template <class T, if_real_t<T> = 0>
TG_HD TG_INLINE T sigmoid(T x) {
  return T(1) / (T(1) + exp(-x));
}

template <class T>
TG_HD TG_INLINE T sqr(const T& x) {
  return x * x;
}

#if TG_DEVICE_PASS
TG_HD TG_INLINE bool is_finite(float x) { return ::isfinite(x); }
TG_HD TG_INLINE bool is_finite(double x) { return ::isfinite(x); }
#else
TG_HD TG_INLINE bool is_finite(float x) { return std::isfinite(x); }
TG_HD TG_INLINE bool is_finite(double x) { return std::isfinite(x); }
#endif

// The plain value of a scalar; the AD layer overloads it for derivative types.
TG_HD TG_INLINE float value(float x) { return x; }
TG_HD TG_INLINE double value(double x) { return x; }

}  // namespace tilegrad
