// The training loss (1 - lambda) L1 + lambda (1 - SSIM) and the image metrics (PSNR, SSIM), forward and backward
// as kernels on the CPU or the GPU. Targets are premultiplied RGBA8 images composited on a background colour.
#pragma once
#include <cstdint>

#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::training {

// The pixels a loss is taken over when the pair is a crop of a larger image whose loss is split into parts (a
// rank's region in Gaussian-partitioned training, apps/distributed): only pixels in [x0, x1) x [y0, y1) of the
// pair count, and the values and the gradient are their terms of the mean over `total_pixels` pixels (the larger
// image's pixels that count: its valid pixels when it has a mask, ImagePair::valid being then its crop). The SSIM of
// a counted pixel reads the pair's pixels around it (an 11 x 11 window), so the crop must hold 5 pixels beyond the
// window on every side that is not the larger image's border. Default (total_pixels 0): the whole pair.
struct LossWindow {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::size_t total_pixels = 0;
};

// An image pair of one size: the rendered image and its target, both on the loss's device.
struct ImagePair {
  int width = 0, height = 0;
  View<const float> image;          // [H, W, 3]
  View<const std::uint8_t> target;  // [H, W, 4], premultiplied RGBA
  float background[3] = {0, 0, 0};  // the target's alpha is composited on it
  // Optional valid-pixel mask [H, W] (0: the pixel is ignored by the loss, its gradient and the metrics) and
  // its count of non-zero pixels; an empty view means every pixel counts. With a window, the mask is the crop of
  // the larger image's and valid_pixels is not read (the window's total_pixels counts the larger image's).
  View<const std::uint8_t> valid;
  std::size_t valid_pixels = 0;
  LossWindow window;
};

// Means over all (valid) pixels and channels. With a LossWindow, the terms of its (valid) pixels in the means
// over the larger image: l1, ssim and mse add up over a partition of that image, and so does loss (its
// 1 - ssim is taken as window fraction - ssim, the fraction being the window's share of the counted pixels).
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
