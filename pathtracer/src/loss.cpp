// L2 image loss: validation, CPU implementation, dispatch to CUDA.
#include "tilegrad/pathtracer/loss.h"

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {

#if TILEGRAD_WITH_CUDA
double l2_loss_cuda(const float* image, const float* target, float* d_image, std::size_t n);
#endif

double l2_loss(View<const float> image, View<const float> target, View<float> d_image) {
  check_view(target, image.size(), image.device, "target");
  check_view(d_image, image.size(), image.device, "d_image");
  const std::size_t n = image.size();
  TG_CHECK_ARG(n > 0, "l2_loss: empty image");
  if (image.device == Device::Cuda) {
#if TILEGRAD_WITH_CUDA
    return l2_loss_cuda(image.data(), target.data(), d_image.data(), n);
#else
    throw Unsupported("l2_loss: this tilegrad build has no CUDA backend");
#endif
  }
  const double scale = 1.0 / static_cast<double>(n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = static_cast<double>(image.ptr[i]) - static_cast<double>(target.ptr[i]);
    sum += r * r;
    d_image.ptr[i] = static_cast<float>(2.0 * r * scale);
  }
  return sum * scale;
}

}  // namespace tilegrad::pathtracer
