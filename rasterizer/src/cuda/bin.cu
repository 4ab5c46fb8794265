// CUDA binning in two short sorts, over the packed visible Gaussians v = 0..V-1 (device_state.h). The reference
// order (the CPU pipeline's bin) sorts every instance by the 8-byte key tile << 32 | depth bits, stably over the
// Gaussian-major instance list. Here:
//   1. the visible Gaussians (ascending v) are sorted stably by their depth bits: 4-byte keys, one per visible
//      Gaussian, not one per instance;
//   2. their instances are emitted in that order, keyed by the tile id alone;
//   3. a stable sort on the tile bits (13 at 1920x1080: 2 radix passes, where the 45-bit key needed 6).
// A stable sort by tile of a list in (depth, v) order is in (tile, depth, v) order, and v orders like the
// Gaussian index: the reference order, with 4-byte keys. Both sorts run on CUB double buffers (no copy of the
// result), so the instances cost 16 bytes each during binning, and the stage's scratch is freed before the blend
// allocates its images.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/bin.h"
#include "cuda/common.cuh"
#include "cuda/tile_ranges.cuh"
#include "cuda/workspace_slots.h"
#include "tilegrad/core/cuda/radix_bits.h"
#include "tilegrad/core/cuda/run_cub.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
using cuda::run_cub;
using U32 = std::uint32_t;

// Depth keys of the visible Gaussians, with their visible indices as the values that travel with them.
__global__ void depth_keys_kernel(std::size_t count, const float* proj, U32* keys, U32* ids) {
  const std::size_t v = global_thread();
  if (v >= count) return;
  keys[v] = depth_bits(proj[v * kProjWidth + kDepth]);
  ids[v] = static_cast<U32>(v);
}

// Instances of visible Gaussian v: the length of its slot range.
struct SlotCount {
  const U32* offsets;
  __device__ U32 operator()(U32 v) const { return offsets[v + 1] - offsets[v]; }
};

// The i-th visible Gaussian front to back writes its instances from first[i] on: key = tile, value = v, its
// rectangle in row-major order (backward recomputes the instance slot from the tile and the rectangle).
__global__ void emit_kernel(std::size_t count, const U32* order, const U32* first, const float* proj, TileGrid grid,
                            U32* tiles, U32* visible) {
  const std::size_t i = global_thread();
  if (i >= count) return;
  const U32 v = order[i];
  const TileRect rect = record_tiles(proj + std::size_t(v) * kProjWidth, grid);
  std::size_t out = first[i];
  for (int ty = rect.y0; ty < rect.y1; ++ty)
    for (int tx = rect.x0; tx < rect.x1; ++tx, ++out) {
      tiles[out] = static_cast<U32>(ty * grid.tiles_x + tx);
      visible[out] = v;
    }
}

// Each tile's instance count as its key, its id as the value.
__global__ void tile_count_kernel(const U32* tile_start, int tiles, U32* counts, U32* ids) {
  const std::size_t t = global_thread();
  if (t >= std::size_t(tiles)) return;
  counts[t] = tile_start[t + 1] - tile_start[t];
  ids[t] = static_cast<U32>(t);
}

// The visible Gaussians front to back (ties by v, that is by Gaussian index).
Buffer<U32> depth_order(const DeviceState& s) {
  Buffer<U32> ids[2] = {Buffer<U32>(s.visible, Device::Cuda), Buffer<U32>(s.visible, Device::Cuda)};
  Buffer<U32> keys[2] = {Buffer<U32>(s.visible, Device::Cuda), Buffer<U32>(s.visible, Device::Cuda)};
  cuda::launch(depth_keys_kernel, s.visible, kBlock, 0, s.visible, s.projected.data(), keys[0].data(), ids[0].data());
  cub::DoubleBuffer<U32> k(keys[0].data(), keys[1].data()), v(ids[0].data(), ids[1].data());
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, static_cast<int>(s.visible));
  });
  return std::move(ids[v.selector]);
}

}  // namespace

void bin_instances(DeviceState& s) {
  if (!start_binning(s)) return;
  const std::size_t tiles = std::size_t(s.grid().count());
  const Buffer<U32> order = depth_order(s);
  Buffer<U32> first(s.visible, Device::Cuda);
  const auto counts_in_order = thrust::make_transform_iterator(order.data(), SlotCount{s.offsets.data()});
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, counts_in_order, first.data(), static_cast<int>(s.visible));
  });
  Buffer<U32> keys[2] = {Buffer<U32>(s.instances, Device::Cuda), Buffer<U32>(s.instances, Device::Cuda)};
  Buffer<U32> values[2] = {Buffer<U32>(s.instances, Device::Cuda), Buffer<U32>(s.instances, Device::Cuda)};
  cuda::launch(emit_kernel, s.visible, kBlock, 0, s.visible, order.data(), first.data(), s.projected.data(), s.grid(),
               keys[0].data(), values[0].data());
  cub::DoubleBuffer<U32> k(keys[0].data(), keys[1].data()), v(values[0].data(), values[1].data());
  const int end_bit = cuda::radix_bits(tiles - 1);  // tile ids < tiles: higher bits are zero
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, static_cast<int>(s.instances), 0, end_bit);
  });
  cuda::launch(tile_start_kernel<U32>, tiles + 1, kBlock, 0, k.Current(), s.instances, int(tiles), s.tile_start.data());
  s.sorted_visible = std::move(values[v.selector]);
}

// The tiles by descending instance count (the blend kernels' launch order, see TileBand); the sort is stable,
// so equal counts keep ascending ids. Scratch in four workspace slots (no allocation per call).
void order_tiles(DeviceState& s, Workspace& ws) {
  const std::size_t tiles = std::size_t(s.grid().count());
  s.tile_order = Buffer<U32>(tiles, Device::Cuda);
  if (tiles == 0) return;
  U32* counts = ws.slot<U32>(Slot::TileCounts, tiles);
  U32* sorted_counts = ws.slot<U32>(Slot::TileCountsSorted, tiles);
  U32* ids = ws.slot<U32>(Slot::TileIds, tiles);
  cuda::launch(tile_count_kernel, tiles, kBlock, 0, s.tile_start.data(), int(tiles), counts, ids);
  const int end_bit = cuda::radix_bits(s.instances);  // counts <= instances
  run_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, counts, sorted_counts, ids, s.tile_order.data(),
                                                         static_cast<int>(tiles), 0, end_bit);
      },
      ws, Slot::TileSortTemp);
}

}  // namespace tilegrad::raster::cuda_backend
