// Internal: the CUDA projection backward stage (project_backward.cu).
#pragma once
#include "cuda/device_state.h"

namespace tilegrad::raster::cuda_backend {

// Pulls the per-Gaussian gradient records grad2d [V, width] (visible index v) back to the parameters of g and
// writes every row of grads (allocated by the caller; zeros for Gaussians not rendered; mean2d_abs when
// non-empty).
void project_backward(const GaussiansView& g, const DeviceState& s, const float* grad2d, int width, Gradients& grads);

}  // namespace tilegrad::raster::cuda_backend
