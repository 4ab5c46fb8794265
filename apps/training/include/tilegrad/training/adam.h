// Adam over several parameter groups with their own learning rates, fused into one pass (one CUDA kernel per
// step for all groups), with the moments kept per element on the parameters' device.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/core/buffer.h"

namespace tilegrad::training {

struct AdamSettings {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-15f;  // the 3DGS value: tiny, so rarely-seen Gaussians still move at the full learning rate
};

// One group: parameters, their gradient and moments (all the same size and device). Element i uses `lr` when
// i mod period < head and `lr_tail` otherwise, which lets one interleaved buffer carry two rates (the SH DC
// coefficients [N, K, 3] use head 3, period 3 K).
struct AdamGroup {
  View<float> param;
  View<const float> grad;
  View<float> m, v;
  float lr = 0.0f;
  float lr_tail = 0.0f;
  int period = 1, head = 1;
};

constexpr int kMaxAdamGroups = 8;

// Step `step` (1-based, for the bias corrections) of every group in one pass.
void adam_step(Device device, const std::vector<AdamGroup>& groups, std::int64_t step, const AdamSettings& settings);

}  // namespace tilegrad::training
