// Order-independent, exactly reproducible sums of floats (the per-element math of the deterministic
// strategies), shared by the CPU and CUDA backends.
//
// A segment of L values is summed per component as follows: m = max |x| over the segment; every value is
// scaled by 2^k, with k chosen so that |x| 2^k < 2^(62 - ceil(log2 L)), rounded to the nearest int64 and the
// integers are added. Integer addition is associative, so the result does not depend on the order of the
// values, on how the work is split between threads, or on the backend: the same bits everywhere. Precision:
// each value is rounded at 2^-(62 - ceil(log2 L)) of the segment maximum (far below float resolution), and
// the total is rounded once to float. Non-finite inputs give NaN (any NaN, or +inf and -inf together) or
// the signed infinity, which is also order-independent.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tilegrad/core/common.h"

namespace tilegrad::exact {

enum : unsigned { kNaN = 1u, kPosInf = 2u, kNegInf = 4u };

TG_HD TG_INLINE unsigned nonfinite_flags(float x) {
  if (x != x) return kNaN;
  if (x == INFINITY) return kPosInf;
  if (x == -INFINITY) return kNegInf;
  return 0u;
}

// Whether a magnitude a = |x| is finite: one comparison, false for infinities and NaN (the first pass's test).
TG_HD TG_INLINE bool finite_magnitude(float a) { return a <= 3.402823466e38f; }

// The result of a segment whose flags are non-zero.
TG_HD TG_INLINE float nonfinite_result(unsigned flags) {
  if ((flags & kNaN) || ((flags & kPosInf) && (flags & kNegInf))) return NAN;
  return (flags & kPosInf) ? INFINITY : -INFINITY;
}

// The number of significant bits of x (0 for x = 0): one instruction on the device.
TG_HD TG_INLINE int bit_length(std::uint32_t x) {
#ifdef __CUDA_ARCH__
  return 32 - __clz(static_cast<int>(x));
#elif defined(__GNUC__)
  return x ? 32 - __builtin_clz(x) : 0;
#else
  int n = 0;
  for (; x; x >>= 1) ++n;
  return n;
#endif
}

// ceil(log2(count)) for count >= 1.
TG_HD TG_INLINE int headroom_bits(std::uint32_t count) { return count <= 1 ? 0 : bit_length(count - 1); }

// frexpf's exponent of a finite x >= 0 (x = f 2^e with f in [0.5, 1); e = 0 for x = 0), read from its bits.
TG_HD TG_INLINE int binary_exponent(float x) {
  std::uint32_t bits;
#ifdef __CUDA_ARCH__
  bits = __float_as_uint(x);
#else
  std::memcpy(&bits, &x, sizeof bits);
#endif
  bits &= 0x7FFFFFFFu;
  const int biased = static_cast<int>(bits >> 23);
  if (biased != 0) return biased - 126;
  return bits ? bit_length(bits) - 149 : 0;  // subnormal: bits * 2^-149
}

// Exponent k such that every |x| <= max_abs satisfies |x| 2^k < 2^(62 - headroom_bits(count)).
TG_HD TG_INLINE int scale_exponent(float max_abs, std::uint32_t count) {
  return 62 - headroom_bits(count) - binary_exponent(max_abs);
}

// 2^k as a double, assembled from its exponent bits: exact for k in [-1022, 1023], which holds every scale
// used here (k lies in [-98, 210]), and so the same as ldexp, for far fewer instructions on the device.
TG_HD TG_INLINE double pow2(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

// 2^k as a float, for k in [-126, 127], from its exponent bits.
TG_HD TG_INLINE float pow2f(int k) {
  const std::uint32_t bits = static_cast<std::uint32_t>(k + 127) << 23;
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

// x 2^k rounded to the nearest integer (ties to even), for |x| 2^k < 2^62 and k in [-126, 254] (scale_exponent
// gives [-98, 210]). The scaling is done in float, 2^k as 2^a 2^b with a = min(k, 127) and b = k - a in [0, 127]:
// neither product can overflow (each is at most |x| 2^k), a product that is normal or zero is exact, and one that
// underflows is below 2^-126 in magnitude, where the exact value rounds to the integer 0 as well. So the integer
// is the one of the exact x 2^k, the same as in double (llrint(double(x) 2^k)), with one conversion per value
// instead of two (on the GPU, conversions from and to 64-bit types issue at a quarter of the float rate).
TG_HD TG_INLINE long long quantize(float x, int k) {
  const int a = k < 127 ? k : 127;
  return llrintf(x * pow2f(a) * pow2f(k - a));
}

TG_HD TG_INLINE float dequantize(long long sum, int k) { return static_cast<float>(static_cast<double>(sum) * pow2(-k)); }

// Calls f(i) for i = 0..count-1. With a compile-time bound N > 0 (count <= N) the loop is unrolled over N and
// left at count, so that values held in a local array indexed by i stay in registers.
template <std::uint32_t N, class F>
TG_HD TG_INLINE void for_each_index(std::uint32_t count, const F& f) {
  if constexpr (N == 0) {
    for (std::uint32_t i = 0; i < count; ++i) f(i);
  } else {
#pragma unroll
    for (std::uint32_t i = 0; i < N; ++i) {
      if (i >= count) break;
      f(i);
    }
  }
}

// The exact sum of `count` values value(0..count-1) (two passes: maximum, then integer sum). Every backend
// and every segment size class produces these same bits. MAX_COUNT > 0: a compile-time bound on count (see
// for_each_index); 0: none. The first pass only notes whether every value is finite (one comparison); the
// non-finite result needs a third pass, taken only then.
template <std::uint32_t MAX_COUNT = 0, class ValueAt>
TG_HD float sum(const ValueAt& value, std::uint32_t count) {
  if (count == 1) {  // the general path returns the value itself (zeros as +0): same bits, far fewer operations
    const float x = value(0);
    const unsigned f = nonfinite_flags(x);
    return f ? nonfinite_result(f) : (x == 0.0f ? 0.0f : x);
  }
  float max_abs = 0.0f;
  bool finite = true;
  for_each_index<MAX_COUNT>(count, [&](std::uint32_t i) {
    const float a = fabsf(value(i));
    max_abs = fmaxf(max_abs, a);
    finite = finite & finite_magnitude(a);
  });
  if (!finite) {
    unsigned flags = 0;
    for_each_index<MAX_COUNT>(count, [&](std::uint32_t i) { flags |= nonfinite_flags(value(i)); });
    return nonfinite_result(flags);
  }
  if (max_abs == 0.0f) return 0.0f;  // the integer sum of zeros: +0
  const int k = scale_exponent(max_abs, count);
  long long total = 0;
  for_each_index<MAX_COUNT>(count, [&](std::uint32_t i) { total += quantize(value(i), k); });
  return dequantize(total, k);
}

}  // namespace tilegrad::exact
