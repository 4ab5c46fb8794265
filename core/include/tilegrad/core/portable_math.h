// exp and log of a float written with correctly rounded operations only (+, -, *, /, fma and exact bit
// manipulation), each spelled out so no compiler fuses or reorders them: a host and a device compute the same
// bits. (The CUDA math library's expf and logf and the host's libm are each accurate to an ulp or two, but not
// equal to each other.) core/math.h uses them in builds with TILEGRAD_PORTABLE_MATH (docs/ARCHITECTURE.md).
// Error at most 1 ulp (tests/core/test_portable_math.cpp); the same bits on host and device
// (tests/core/test_portable_math_device.cu).
#pragma once
#include <cstdint>
#include <cstring>

#include "tilegrad/core/common.h"

namespace tilegrad::portable {

// One rounding each, never contracted into a fused multiply-add (nvcc would, in device code).
TG_HD inline float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
TG_HD inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
TG_HD inline float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
TG_HD inline float fused(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

TG_HD inline float from_bits(std::uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}
TG_HD inline std::uint32_t to_bits(float f) {
  std::uint32_t u;
  memcpy(&u, &f, sizeof(u));
  return u;
}
// 2^e for e in [-126, 127], exactly.
TG_HD inline float pow2(int e) { return from_bits(std::uint32_t(e + 127) << 23); }

// ln 2 as a short head (k * head is exact for |k| <= 256) and a tail.
constexpr float kLn2Head = 0.693145751953125f;
constexpr float kLn2Tail = 1.428606765330187045037746429443359375e-6f;

TG_HD inline float exp(float x) {
  if (!(x == x)) return x;                                    // NaN
  if (x > 88.72283935546875f) return from_bits(0x7F800000u);  // beyond ln(FLT_MAX): +inf
  if (x < -103.97208404541015625f) return 0.0f;               // below half the smallest subnormal
  // x = k ln2 + r, |r| <= ln2 / 2: k by rounding x log2(e) (adding 1.5 * 2^23 rounds to an integer).
  const float shift = 12582912.0f;
  const float k = add(fused(x, 1.44269502162933349609375f, shift), -shift);
  const float r = fused(k, -kLn2Tail, fused(k, -kLn2Head, x));
  // exp(r) by its Taylor polynomial to r^7 (truncation below 1e-8 relative on |r| <= 0.347), Horner with fma.
  float p = 1.0f / 5040.0f;
  p = fused(p, r, 1.0f / 720.0f);
  p = fused(p, r, 1.0f / 120.0f);
  p = fused(p, r, 1.0f / 24.0f);
  p = fused(p, r, 1.0f / 6.0f);
  p = fused(p, r, 0.5f);
  p = fused(p, r, 1.0f);
  p = fused(p, r, 1.0f);
  // p 2^k, in two exact factors where 2^k alone is not a normal float (one rounding, at the last product).
  const int e = int(k);
  if (e > 127) return mul(mul(p, pow2(127)), pow2(e - 127));
  if (e < -126) return mul(mul(p, pow2(e + 64)), pow2(-64));
  return mul(p, pow2(e));
}

TG_HD inline float log(float x) {
  if (!(x == x)) return x;                       // NaN
  if (x < 0.0f) return from_bits(0x7FC00000u);   // NaN
  if (x == 0.0f) return from_bits(0xFF800000u);  // -inf
  if (x == from_bits(0x7F800000u)) return x;     // +inf
  int e = 0;
  if (x < from_bits(0x00800000u)) {  // subnormal: scale into the normal range, exactly
    x = mul(x, 8388608.0f);          // 2^23
    e = -23;
  }
  const std::uint32_t bits = to_bits(x);
  e += int(bits >> 23) - 127;
  float m = from_bits((bits & 0x007FFFFFu) | 0x3F800000u);  // [1, 2)
  if (m > 1.41421353816986083984375f) {  // into [sqrt(1/2), sqrt(2)): m / 2, exactly
    m = mul(m, 0.5f);
    e += 1;
  }
  // log(1 + f) = 2 atanh(s) = 2s + s R(s^2), s = f / (2 + f), |s| <= 0.1716, R to s^8 (truncation below 4e-10),
  // evaluated as f - (f^2/2 - s (f^2/2 + R)) so that the exact f carries the result (2s = f - f^2/2 + s f^2/2).
  const float f = add(m, -1.0f);  // exact (Sterbenz)
  const float s = div(f, add(2.0f, f));
  const float z = mul(s, s);
  float q = 2.0f / 9.0f;
  q = fused(q, z, 2.0f / 7.0f);
  q = fused(q, z, 2.0f / 5.0f);
  q = fused(q, z, 2.0f / 3.0f);
  const float r = mul(z, q);
  const float half_f2 = mul(mul(0.5f, f), f);
  const float log_m = add(f, -fused(-s, add(half_f2, r), half_f2));
  // e ln2 + log(m), the small terms first.
  const float fe = float(e);
  return fused(fe, kLn2Head, fused(fe, kLn2Tail, log_m));
}

}  // namespace tilegrad::portable
