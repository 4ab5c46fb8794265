// The training loss (1 - lambda) L1 + lambda (1 - SSIM) and the image metrics (PSNR, SSIM), forward and backward
// as kernels on the CPU or the GPU. Targets are premultiplied RGBA8 images composited on a background colour.
#pragma once
#include <cstdint>

#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::training {

// An image pair of one size: the rendered image and its target, both on the loss's device.
struct ImagePair {
  int width = 0, height = 0;
  View<const float> image;          // [H, W, 3]
  View<const std::uint8_t> target;  // [H, W, 4], premultiplied RGBA
  float background[3] = {0, 0, 0};  // the target's alpha is composited on it
  // Optional valid-pixel mask [H, W] (0: the pixel is ignored by the loss, its gradient and the metrics) and
  // its count of non-zero pixels; an empty view means every pixel counts.
  View<const std::uint8_t> valid;
  std::size_t valid_pixels = 0;
};

// Means over all (valid) pixels and channels.
struct LossValues {
  float loss = 0;  // (1 - lambda) l1 + lambda (1 - ssim)
  float l1 = 0;    // mean |x - y|
  float ssim = 0;  // mean SSIM (11x11 Gaussian window, sigma 1.5, zero-padded borders)
  float mse = 0;   // mean (x - y)^2
};
constexpr int kLossValueCount = 4;  // floats in a LossValues record, in declaration order

float psnr_from_mse(float mse);  // 10 log10(1 / mse), for images in [0, 1]

class ImageLoss {
 public:
  explicit ImageLoss(Device device, float lambda_dssim = 0.2f);

  Device device() const { return m_workspace.device(); }
  float lambda() const { return m_lambda; }

  // Writes dL/dimage into `grad` [H, W, 3] and the four LossValues floats into `values` (device memory, so a
  // training step needs no host round trip; read them when logging). Deterministic: no atomics.
  void backward(const ImagePair& pair, View<float> grad, View<float> values);

  // Metrics of the image clamped to [0, 1] (how a saved render compares), read back to the host.
  LossValues evaluate(const ImagePair& pair);

 private:
  void check(const ImagePair& pair) const;
  float m_lambda;
  Workspace m_workspace;
};

}  // namespace tilegrad::training
