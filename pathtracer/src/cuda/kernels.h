// Launchers of the path tracer's CUDA kernels (pointers are device memory; the stream is the default one).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "tilegrad/pathtracer/edge_sample.h"
#include "tilegrad/pathtracer/scene_view.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::pathtracer::cuda_backend {

// How a kernel hands its gradient rows on.
enum class Sink {
  Atomic,          // atomicAdd per component into grad
  WarpAggregated,  // equal sphere ids combined in the warp, then atomics into grad
  Records,         // one record (id, row) per slot, a sentinel id where there is nothing: SortReduce
  Owned,           // interior: per-tile partials into the tile's slots; edges: rows into their own slots
};

struct InteriorArgs {
  SceneView<float> scene;
  RenderSettings settings;
  const float* d_image;        // [h][w][3]
  int slots;                   // contribution slots per sample (max_involved)
  int tiles_x, first_tile, num_tiles;
  float* grad;                 // Atomic, WarpAggregated: [spheres x 10]
  std::uint32_t* ids;          // Records: [num_tiles x 256 x spp x slots]
  float* values;               // Records: [... x 10]
  std::uint32_t sentinel;      // Records: the id of empty slots (= number of spheres)
  const std::uint32_t* tile_offsets;  // Owned: tile tables
  const std::uint32_t* tile_ids;
  const std::uint32_t* pair_slot;
  float* owned;                // Owned: [rows x 10]
  unsigned* missing;           // Owned: set when a contribution's sphere is not in its tile's table
  std::uint32_t block_rows;    // Owned: 0, or the grid size with one row per block and sphere (layout.h)
  const std::uint32_t* segments;  // Owned with block rows: the layout's segments
  const std::uint32_t* tile_order;  // ... and its tile order
};
void launch_interior(Sink sink, const InteriorArgs& args);
// Owned block rows (InteriorArgs::block_rows) exist for one hard vertex and one sample per pixel; the grid
// that fits on the device at once.
bool owned_block_rows_apply(const RenderSettings& settings);
std::uint32_t owned_resident_blocks();

struct EdgeArgs {
  SceneView<float> scene;
  RenderSettings settings;
  const float* d_image;
  const EdgeCurve* curves;       // [num_curves], samples contiguous per curve
  int num_curves;
  std::uint32_t total;           // samples
  float* grad;                   // Atomic, WarpAggregated
  std::uint32_t* ids;            // Records: [2 x total] (spheres a and b of each sample's curve)
  float* values;                 // Records: [2 x total x 10]
  std::uint32_t sentinel;
  float* owned;                  // Owned: rows at the curves' row_a / row_b
};
void launch_edges(Sink sink, const EdgeArgs& args, cudaStream_t stream = 0);

void launch_render(const SceneView<float>& scene, const RenderSettings& settings, float* image);

}  // namespace tilegrad::pathtracer::cuda_backend
