// Per-element math of the exact sum over ranks (exact_combine.h): the project's exact segmented sum
// (ad/exact_sum.h) with the segment spread over ranks. Every rank contributes one value x_r of an element; the
// largest magnitude's exponent is found by a MAX over the ranks of a byte per element (the float's biased
// exponent field, which orders like the magnitude), then every rank scales its value by the same power of two,
// rounds it to int64, the integers are summed over the ranks (associative: any reduction order, any NCCL
// algorithm gives the same bits) and each rank converts the sum back once. Host and device.
#pragma once
#include <cstdint>
#include <cstring>

#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/core/common.h"

namespace tilegrad::distributed {

// The biased exponent field of x (0 for zero and subnormals, 255 for infinities and NaN): the MAX over ranks of
// the codes is the code of the largest |x_r|.
TG_HD TG_INLINE std::uint8_t exponent_code(float x) {
  std::uint32_t bits;
  memcpy(&bits, &x, sizeof(bits));
  return static_cast<std::uint8_t>((bits >> 23) & 0xFFu);
}

// The scale exponent k of exact::scale_exponent for a maximum whose code is `code` over `ranks` values: with
// max = f 2^e, f in [0.5, 1), a normal maximum has e = code - 126; zero and subnormal maxima use e = -126 (an
// upper bound), which keeps every value an integer after scaling.
TG_HD TG_INLINE int rank_scale_exponent(std::uint8_t code, std::uint32_t ranks) {
  const int e = code == 0 ? -126 : int(code) - 126;
  return 62 - exact::headroom_bits(ranks) - e;
}

// This rank's integer for the sum (0 when the element is not finite somewhere: the result is then NaN).
TG_HD TG_INLINE long long rank_quantize(float x, std::uint8_t code, std::uint32_t ranks) {
  if (code == 255) return 0;
  return exact::quantize(x, rank_scale_exponent(code, ranks));
}

// The sum from the summed integers, times `scale` (1 for a plain sum: then exact).
TG_HD TG_INLINE float rank_dequantize(long long sum, std::uint8_t code, std::uint32_t ranks, float scale) {
  if (code == 255) return NAN;
  const float total = exact::dequantize(sum, rank_scale_exponent(code, ranks));
  return scale == 1.0f ? total : total * scale;
}

}  // namespace tilegrad::distributed
