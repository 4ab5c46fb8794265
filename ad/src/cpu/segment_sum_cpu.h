// CPU form of the exact segmented sum (see exact_sum.h): one segment, one component.
#pragma once
#include <cstdint>

#include "tilegrad/ad/exact_sum.h"

namespace tilegrad::ad::cpu_backend {

// Rows of the segment are rows[begin..end) when `perm` is null, else perm[begin..end).
inline float exact_segment_sum(const float* values, int width, int component, const std::uint32_t* perm,
                               std::uint32_t begin, std::uint32_t end) {
  return exact::sum(
      [&](std::uint32_t i) {
        const std::size_t row = perm ? perm[begin + i] : begin + i;
        return values[row * static_cast<std::size_t>(width) + static_cast<std::size_t>(component)];
      },
      end - begin);
}

}  // namespace tilegrad::ad::cpu_backend
