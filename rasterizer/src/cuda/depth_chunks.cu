// The depth-chunk plan of the blend backward (depth_chunks.h): one exclusive scan of the chunks per tile.
#include <cub/block/block_scan.cuh>

#include "cuda/common.cuh"
#include "cuda/depth_chunks.h"
#include "cuda/workspace_slots.h"

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

// One block plans every position: each pass takes kPlanThreads x kPlanItems positions (a thread's consecutive),
// scans their chunk counts across the block and adds the passes before, then writes first[] and the units' table
// (unit[first[i] + c] = (i, c) for the chunks c of position i). One launch, and no scan scratch: the plan sits on
// the path from the host's first call to the blend backward's launch, where each launch costs host time.
constexpr int kPlanThreads = 512, kPlanItems = 16;
__global__ void __launch_bounds__(kPlanThreads) plan_kernel(ChunksAt chunks, int tiles, U32* first, uint2* unit) {
  using Scan = cub::BlockScan<U32, kPlanThreads>;
  __shared__ typename Scan::TempStorage scan;
  U32 before = 0;  // chunks of the passes before (the same in every thread)
  for (int base = 0; base <= tiles; base += kPlanThreads * kPlanItems) {
    const int i0 = base + int(threadIdx.x) * kPlanItems;
    U32 count[kPlanItems], at[kPlanItems], pass_total;
#pragma unroll
    for (int k = 0; k < kPlanItems; ++k) count[k] = chunks(U32(i0 + k));  // 0 past the last position
    Scan(scan).ExclusiveSum(count, at, pass_total);
#pragma unroll
    for (int k = 0; k < kPlanItems; ++k) {
      const int i = i0 + k;
      if (i > tiles) break;
      first[i] = before + at[k];
      for (U32 c = 0; c < count[k]; ++c) unit[before + at[k] + c] = make_uint2(U32(i), c);
    }
    before += pass_total;
    __syncthreads();  // the scan's storage is reused by the next pass
  }
}

}  // namespace

DepthChunks plan_depth_chunks(const U32* tile_start, const U32* tile_order, int tiles, std::size_t instances,
                              U32 length, Workspace& ws) {
  DepthChunks d;
  d.tiles = tiles;
  if (length == 0 || tiles == 0) return d;
  d.length = length;
  U32* first = ws.slot<U32>(Slot::ChunkFirst, std::size_t(tiles) + 1);
  // Sized by the launch's bound on the chunks, so that no count is read back.
  uint2* unit = ws.slot<uint2>(Slot::ChunkUnits, d.launch_units(tiles, instances));
  plan_kernel<<<1, kPlanThreads>>>(ChunksAt{tile_start, tile_order, tiles, length}, tiles, first, unit);
  TG_CUDA_CHECK_LAUNCH();
  d.first = first;
  d.unit = unit;
  return d;
}

}  // namespace tilegrad::raster::cuda_backend
