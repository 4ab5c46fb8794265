// Internal: the CPU loss (float for training, double for the tests' float64 references).
#pragma once
#include <vector>

#include "loss_passes.h"

namespace tilegrad::training::detail {

// Runs the passes over a.elements() elements; a.moments and a.partials must be allocated (see LossArgs).
// values: the four LossValues floats.
template <class T>
void image_loss_cpu(const LossArgs<T>& a, float* values);

// Convenience for tests: allocates the scratch planes; grad and valid (a [H, W] mask) may be null.
template <class T>
void image_loss_cpu(int width, int height, const T* image, const std::uint8_t* target, const T background[3], T lambda,
                    bool clamp_image, T* grad, float* values, const std::uint8_t* valid = nullptr) {
  LossArgs<T> a;
  a.width = width;
  a.height = height;
  a.image = image;
  a.target = target;
  for (int c = 0; c < 3; ++c) a.background[c] = background[c];
  a.lambda = lambda;
  a.clamp_image = clamp_image;
  a.grad = grad;
  a.window = make_ssim_window<T>();
  a.valid = valid;
  a.counted = a.elements();
  if (valid) {
    a.counted = 0;
    for (std::size_t i = 0; i < std::size_t(width) * height; ++i) a.counted += valid[i] ? 3 : 0;
  }
  std::vector<T> moments(5 * a.elements()), partials(3 * a.elements());
  a.moments = moments.data();
  a.partials = partials.data();
  image_loss_cpu(a, values);
}

}  // namespace tilegrad::training::detail
