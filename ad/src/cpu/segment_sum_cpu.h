// CPU form of the exact segmented sum (see exact_sum.h): one segment, one component.
#pragma once
#include <cmath>
#include <cstdint>

#include "tilegrad/ad/exact_sum.h"

namespace tilegrad::ad_backend {

// Rows of the segment are rows[begin..end) when `perm` is null, else perm[begin..end).
inline float exact_segment_sum(const float* values, int width, int component, const std::uint32_t* perm,
                               std::uint32_t begin, std::uint32_t end) {
  auto at = [&](std::uint32_t i) {
    const std::size_t row = perm ? perm[i] : i;
    return values[row * static_cast<std::size_t>(width) + static_cast<std::size_t>(component)];
  };
  float max_abs = 0.0f;
  unsigned flags = 0;
  for (std::uint32_t i = begin; i < end; ++i) {
    const float x = at(i);
    flags |= exact::nonfinite_flags(x);
    max_abs = std::fmax(max_abs, std::fabs(x));
  }
  if (flags) return exact::nonfinite_result(flags);
  const int k = exact::scale_exponent(max_abs, end - begin);
  long long sum = 0;
  for (std::uint32_t i = begin; i < end; ++i) sum += exact::quantize(at(i), k);
  return exact::dequantize(sum, k);
}

}  // namespace tilegrad::ad_backend
