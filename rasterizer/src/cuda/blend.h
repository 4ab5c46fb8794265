// Internal: the CUDA blend stage (blend.cu).
#pragma once
#include "cuda/device_state.h"

namespace tilegrad::raster::cuda_backend {

// Composites every pixel front to back from s (records, tile lists and order): writes image [H * W * 3], alpha
// [H * W], depth [H * W] when non-null, and the backward's s.final_transmittance and s.contributors.
void blend(DeviceState& s, float* image, float* alpha, float* depth);

}  // namespace tilegrad::raster::cuda_backend
