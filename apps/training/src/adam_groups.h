// Internal: the flat description of a fused Adam step (passed by value to the CUDA kernel) and its per-element
// body, shared by the CPU loop and the kernel.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/training/adam.h"
#include "tilegrad/training/element/adam.h"

namespace tilegrad::training::detail {

struct AdamGroupArgs {
  float *param, *m, *v;
  const float* grad;
  std::size_t begin;  // first element of this group in the concatenation of all groups
  float lr, lr_tail;
  int period, head;
};

struct AdamGroups {
  AdamGroupArgs group[kMaxAdamGroups];
  int count = 0;
  std::size_t total = 0;  // elements over all groups
};

// Element e of the concatenation of all groups.
TG_HD TG_INLINE void adam_element(const AdamGroups& groups, const AdamStepConstants& k, std::size_t e) {
  int g = 0;
  while (g + 1 < groups.count && e >= groups.group[g + 1].begin) ++g;
  const AdamGroupArgs& a = groups.group[g];
  const std::size_t i = e - a.begin;
  // 32-bit remainders where they suffice: a 64-bit one is a long instruction sequence on the GPU.
  const std::size_t phase = i < (std::size_t(1) << 32) ? std::size_t(std::uint32_t(i) % std::uint32_t(a.period))
                                                       : i % std::size_t(a.period);
  const float lr = int(phase) < a.head ? a.lr : a.lr_tail;
  adam_update(a.param[i], a.grad[i], a.m[i], a.v[i], lr, k);
}

}  // namespace tilegrad::training::detail
