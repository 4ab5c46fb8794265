// The image loss of the inverse problems: mean squared error over pixels and channels, and its adjoint.
#pragma once
#include "tilegrad/core/buffer.h"

namespace tilegrad::pathtracer {

// Returns L = mean((image - target)^2) and writes d_image = dL/dimage = 2 (image - target) / n.
// All three views on one device, same size. The value is summed in double in a fixed order.
double l2_loss(View<const float> image, View<const float> target, View<float> d_image);

}  // namespace tilegrad::pathtracer
