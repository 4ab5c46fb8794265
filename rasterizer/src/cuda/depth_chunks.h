// Internal: depth chunks of the blend backward. A tile whose depth list holds more than `length` instances is
// run by several blocks, each over one chunk of `length` consecutive instances of the list (the last may be
// shorter); the others keep one block. A chunk's block first replays the fragments behind its chunk with
// sweep_past (element/blend.h: transmittance and colour behind, no derivatives), so every pixel reaches the
// chunk in the state the whole-tile sweep would have, and its records have the whole-tile bits. The densest tile
// then no longer sets the kernel's time alone (its derivatives are shared by its chunks' blocks).
#pragma once
#include <cstdint>

#include "tilegrad/core/workspace.h"

namespace tilegrad::raster::cuda_backend {

// One block's work: the tile at position `position` of the launch's tile order, and its chunk.
struct ChunkOfBlock {
  bool valid;  // false: a block past the last chunk (the launch is sized by a bound)
  int position;
  std::uint32_t chunk;
};

struct DepthChunks {
  std::uint32_t length = 0;               // instances per chunk; 0: whole tiles, one block each
  const std::uint32_t* first = nullptr;   // [tiles + 1]: first chunk of each position of the tile order, then the total
  const uint2* unit = nullptr;            // [chunks]: (position, chunk) of each unit, so a block finds its work in
                                          // one load (a search over `first` would be a chain of dependent loads)
  int tiles = 0;

#ifdef __CUDACC__
  // The chunk of unit u (a block, or a group of PARTS band blocks).
  __device__ ChunkOfBlock of(std::uint32_t u) const {
    if (length == 0) return {true, int(u), 0u};
    if (u >= first[tiles]) return {false, 0, 0u};
    const uint2 w = unit[u];
    return {true, int(w.x), w.y};
  }
#endif
  // Blocks (units) to launch: every tile's chunks, bounded without reading the plan back (no host round trip):
  // a tile of n instances has max(1, ceil(n / length)) <= 1 + n / length chunks.
  std::size_t launch_units(int tiles_in_launch, std::size_t instances) const {
    return std::size_t(tiles_in_launch) + (length > 0 ? instances / length : 0);
  }
};

// The chunks of `tiles` positions of tile_order holding `instances` in all (a prefix sum and the units' table in
// the workspace); whole tiles for length 0.
DepthChunks plan_depth_chunks(const std::uint32_t* tile_start, const std::uint32_t* tile_order, int tiles,
                              std::size_t instances, std::uint32_t length, Workspace& ws);

}  // namespace tilegrad::raster::cuda_backend
