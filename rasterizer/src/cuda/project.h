// Internal: the CUDA projection stage (project.cu).
#pragma once
#include "cuda/device_state.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::raster::cuda_backend {

// Projects every Gaussian of g with s.projection: fills the visibility bits, s.visible, s.instances, s.max_tiles,
// and the packed s.projected, s.clamped and tile counts (in s.offsets[0..V)) of the V visible Gaussians. One
// device-to-host read (the counts).
void project(const GaussiansView& g, DeviceState& s, Workspace& ws);

// Exclusive scan of the tile counts in place: s.offsets [V + 1], each visible Gaussian's first instance slot.
void number_instances(DeviceState& s, Workspace& ws);

}  // namespace tilegrad::raster::cuda_backend
