// Internal: the CUDA binning stage (instances sorted by tile, front to back within a tile).
#pragma once
#include <cstddef>
#include <cstdint>

#include "cuda/device_state.h"

namespace tilegrad::raster::cuda_backend {

// Fills s.sorted_gaussians [s.instances] and s.tile_start [tiles + 1] in the order of the reference binning
// (cpu::bin: by tile, then depth, then Gaussian index). Reads s.projected, s.grid, s.visible, s.instances and
// tiles_touched [n] (0 for culled Gaussians). Its scratch lives for the call only.
void bin_instances(DeviceState& s, std::size_t n, const std::uint32_t* tiles_touched);

}  // namespace tilegrad::raster::cuda_backend
