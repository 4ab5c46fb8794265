// Internal: the CUDA backend's forward and backward drivers (forward.cu, backward.cu), which run the stages.
#pragma once
#include "cuda/device_state.h"
#include "tilegrad/ad/accumulator.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::raster::cuda_backend {

// s: the camera, settings and projection settings set; fills the rest of s and the images of out. times: null, or
// the stages' milliseconds.
void forward(const GaussiansView& g, DeviceState& s, ForwardOutput& out, Workspace& ws, StageTimes* times);

class NonfiniteCheck;

// check: null, or the finiteness check of dl, forked (NonfiniteCheck::fork); backward launches it once its first
// work is queued.
Gradients backward(const GaussiansView& g, const DeviceState& s, const LossGradients<float>& dl,
                   const BackwardSettings& settings, Accumulator& acc, Workspace& ws, StageTimes* times,
                   NonfiniteCheck* check);

}  // namespace tilegrad::raster::cuda_backend
