// Internal: arguments and launcher of the CUDA blend backward.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cuda/contributors.cuh"
#include "cuda/depth_chunks.h"
#include "tilegrad/ad/accumulation.h"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster::cuda_backend {

struct BlendBackwardArgs {
  TileGrid grid;
  Thresholds thresholds;
  float background[3];
  // The forward's packed state (device_state.h): records, instance slots and grad2d rows by visible index v.
  const float* proj;  // [V, kProjWidth]
  const std::uint32_t *tile_start, *tile_order, *sorted_visible, *offsets;
  ContributorReader contributors;
  const float* final_transmittance;
  const float *d_image, *d_alpha, *d_depth;  // alpha and depth may be null
  float* grad2d;   // Atomic / WarpAggregated: [V, width], zeroed by the caller
  // Owned: [instances, width] in slot order; SortReduce: in tile-sorted order. Zeroed by the caller: the kernel
  // writes the rows of the instances some pixel reached.
  float* partial;
  // Owned: the first tile row of the launch's band (record_strips.h). The slots (offsets) count each Gaussian's
  // tiles from that row on; 0 with the forward's offsets when the whole image is one band.
  int row_begin;
  // The blocks' depth chunks over the launch's tiles (depth_chunks.h); default: one block per tile.
  DepthChunks chunks;
};

// Owned and SortReduce both produce per-instance records (SortReduce then sorts them by visible index).
// width: 9 (mean2d, conic, opacity, colour) or 12 (plus depth and |dL/dmean2d|); records and grad2d rows use it.
// tiles: how many tiles of args.tile_order to run; instances: theirs (the launch shape depends on the instances
// per tile, and args.chunks' block count is bounded by them).
void launch_blend_backward(Accumulation mode, int width, const BlendBackwardArgs& args, int tiles,
                           std::size_t instances);

}  // namespace tilegrad::raster::cuda_backend
