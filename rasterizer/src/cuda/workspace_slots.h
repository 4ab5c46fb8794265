// Internal: the slots of the CUDA backend's workspace (one per Rasterizer), every stage's in one place.
#pragma once
#include <cstddef>

namespace tilegrad::raster::cuda_backend {

enum class Slot : std::size_t {
  ScanTemp,          // project: scan scratch (visible indices, instance slots)
  Counts,            // project: {visible, instances, most tiles of one Gaussian}
  TileCounts,        // bin, order_tiles: instances per tile, sorted, tile ids, sort scratch
  TileCountsSorted,
  TileIds,
  TileSortTemp,
  NonfiniteFlags,    // the backward's finiteness check of dL/d* (nonfinite_check.h)
  StripOffsets,      // record strips: a strip's instance slots, its tile order, scan scratch
  StripOrder,
  StripScan,
  StripOfRow,        // strip_tile_order: strip of each tile row, keys, sorted keys, sort scratch
  StripKeys,
  StripKeysSorted,
  StripSortTemp,
  ChunkFirst,        // depth chunks of the blend backward: first chunk of each tile, units' table
  ChunkUnits,
};

}  // namespace tilegrad::raster::cuda_backend
