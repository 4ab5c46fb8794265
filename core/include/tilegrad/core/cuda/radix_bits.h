// How many low key bits a radix sort must look at (plain C++, used by the .cu files that sort).
#pragma once
#include <cstddef>

namespace tilegrad::cuda {

// Keys in [0, max_value] differ only in their lowest radix_bits(max_value) bits (at least 1, at most 32).
inline int radix_bits(std::size_t max_value) {
  int bits = 1;
  while (bits < 32 && (std::size_t(1) << bits) <= max_value) ++bits;
  return bits;
}

}  // namespace tilegrad::cuda
