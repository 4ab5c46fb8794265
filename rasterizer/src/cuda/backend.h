// Internal: entry points of the CUDA rasterizer (defined only in CUDA builds).
#pragma once
#include "cuda/device_state.h"
#include "tilegrad/ad/accumulate.h"
#include "tilegrad/core/workspace.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::raster::cuda_backend {

// Fills s and the images of out. times may be null.
void forward(const GaussiansView& g, DeviceState& s, ForwardOutput& out, Workspace& ws, StageTimes* times);

void backward(const GaussiansView& g, const DeviceState& s, const float* dl_dimage, const float* dl_dalpha,
              const float* dl_ddepth, const BackwardSettings& settings, Gradients& grads, Accumulator& acc,
              Workspace& ws, StageTimes* times);

// True when any of the n values is NaN or infinite.
bool any_nonfinite(const float* values, std::size_t n, Workspace& ws);

}  // namespace tilegrad::raster::cuda_backend
