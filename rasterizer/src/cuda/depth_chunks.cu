// The depth-chunk plan of the blend backward (depth_chunks.h): one exclusive scan of the chunks per tile.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/common.cuh"
#include "cuda/depth_chunks.h"
#include "cuda/workspace_slots.h"
#include "tilegrad/core/cuda/run_cub.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using U32 = std::uint32_t;

// Chunks of position i of the tile order (0 for i = tiles, so that the scan's last element is the total).
struct ChunksAt {
  const U32 *tile_start, *tile_order;
  int tiles;
  U32 length;
  __device__ U32 operator()(U32 i) const {
    if (i >= U32(tiles)) return 0;
    const U32 t = tile_order[i], n = tile_start[t + 1] - tile_start[t];
    return n > length ? (n + length - 1) / length : 1u;
  }
};

// unit[first[i] + c] = (i, c) for the chunks c of position i.
__global__ void chunk_units_kernel(const U32* first, int tiles, uint2* unit) {
  const std::size_t i = cuda::global_thread();
  if (i >= std::size_t(tiles)) return;
  for (U32 u = first[i], c = 0; u < first[i + 1]; ++u, ++c) unit[u] = make_uint2(U32(i), c);
}

}  // namespace

DepthChunks plan_depth_chunks(const U32* tile_start, const U32* tile_order, int tiles, std::size_t instances,
                              U32 length, Workspace& ws) {
  DepthChunks d;
  d.tiles = tiles;
  if (length == 0 || tiles == 0) return d;
  d.length = length;
  U32* first = ws.slot<U32>(Slot::ChunkFirst, std::size_t(tiles) + 1);
  const auto chunks = thrust::make_transform_iterator(thrust::counting_iterator<U32>(0),
                                                      ChunksAt{tile_start, tile_order, tiles, length});
  cuda::run_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, chunks, first, tiles + 1);
      },
      ws, Slot::ChunkScan);
  // Sized by the launch's bound on the chunks, so that no count is read back.
  uint2* unit = ws.slot<uint2>(Slot::ChunkUnits, d.launch_units(tiles, instances));
  cuda::launch(chunk_units_kernel, std::size_t(tiles), kBlock, 0, first, tiles, unit);
  d.first = first;
  d.unit = unit;
  return d;
}

}  // namespace tilegrad::raster::cuda_backend
