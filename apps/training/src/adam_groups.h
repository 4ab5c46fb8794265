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
  std::size_t begin;       // first element of this group in the concatenation of all groups
  std::size_t quad_begin;  // first run of 4 elements of this group in the concatenation of all groups' runs
  float lr, lr_tail;
  int period, head;
};

struct AdamGroups {
  AdamGroupArgs group[kMaxAdamGroups];
  int count = 0;
  std::size_t total = 0;  // elements over all groups
  std::size_t quads = 0;  // runs of 4 elements over all groups (a group's last run may be shorter)
};

// The group that holds position `at` of a concatenation whose group starts are `start` (begin or quad_begin).
template <class Start>
TG_HD TG_INLINE int adam_group_of(const AdamGroups& groups, std::size_t at, Start start) {
  int g = 0;
  while (g + 1 < groups.count && at >= start(groups.group[g + 1])) ++g;
  return g;
}

// Elements in group g.
TG_HD TG_INLINE std::size_t adam_group_size(const AdamGroups& groups, int g) {
  return (g + 1 < groups.count ? groups.group[g + 1].begin : groups.total) - groups.group[g].begin;
}

// The learning rate of element i of a group: lr for the first `head` of every `period` elements, else lr_tail.
TG_HD TG_INLINE float adam_lr(const AdamGroupArgs& a, std::size_t i) {
  // 32-bit remainders where they suffice: a 64-bit one is a long instruction sequence on the GPU.
  const std::size_t phase = i < (std::size_t(1) << 32) ? std::size_t(std::uint32_t(i) % std::uint32_t(a.period))
                                                       : i % std::size_t(a.period);
  return int(phase) < a.head ? a.lr : a.lr_tail;
}

// Element e of the concatenation of all groups.
TG_HD TG_INLINE void adam_element(const AdamGroups& groups, const AdamStepConstants& k, std::size_t e) {
  const AdamGroupArgs& a = groups.group[adam_group_of(groups, e, [](const AdamGroupArgs& x) { return x.begin; })];
  const std::size_t i = e - a.begin;
  adam_update(a.param[i], a.grad[i], a.m[i], a.v[i], adam_lr(a, i), k);
}

}  // namespace tilegrad::training::detail
