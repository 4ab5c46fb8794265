// Internal: the CUDA binning stage (instances sorted by tile, front to back within a tile).
#pragma once
#include "cuda/device_state.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::raster::cuda_backend {

// Fills s.sorted_visible [s.instances] (visible indices) and s.tile_start [tiles + 1] in the order of the
// reference binning (the CPU pipeline's: by tile, then depth, then Gaussian index). Reads the packed s.projected
// and s.offsets, s.grid(), s.visible and s.instances. Its scratch lives for the call only.
void bin_instances(DeviceState& s);
// The same result by the original 3DGS binning (Binning::ThrustKeys, bin_thrust.cu): one thrust sort of 8-byte
// tile | depth keys over all instances. Slower and larger; for comparison only.
void bin_instances_thrust(DeviceState& s);

// Fills s.tile_order [tiles]: the tiles by descending instance count (from s.tile_start), the order in which
// the blend kernels take them (TileBand). Scratch in the Slot::Tile* workspace slots.
void order_tiles(DeviceState& s, Workspace& ws);

}  // namespace tilegrad::raster::cuda_backend
