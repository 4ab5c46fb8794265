// Per-element Adam update (Kingma & Ba), written once for the CPU loop and the fused CUDA kernel.
#pragma once
#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad::training {

// Step constants computed once per step on the host: the learning rate folded with the bias corrections.
struct AdamStepConstants {
  float beta1, beta2, eps;
  float inv_bias1;       // 1 / (1 - beta1^t)
  float inv_sqrt_bias2;  // 1 / sqrt(1 - beta2^t)
};

// m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2;  p <- p - lr m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps)
// (the form PyTorch's Adam uses, so the published learning rates and epsilon mean the same thing here).
// The multiply-adds are written out (fma: rounded once on every backend) rather than left to the compiler, which
// contracts such expressions differently from one kernel to another: every caller, CPU or CUDA, gets the same
// bits.
TG_HD TG_INLINE void adam_update(float& p, float g, float& m, float& v, float lr, const AdamStepConstants& k) {
  m = fma(1.0f - k.beta1, g, k.beta1 * m);
  v = fma((1.0f - k.beta2) * g, g, k.beta2 * v);
  const float denom = fma(sqrt(v), k.inv_sqrt_bias2, k.eps);
  p -= lr * k.inv_bias1 * m / denom;
}

}  // namespace tilegrad::training
