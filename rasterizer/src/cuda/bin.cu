// CUDA binning in two short sorts. The reference order (cpu::bin) sorts every instance by the 8-byte key
// tile << 32 | depth bits, stably over the Gaussian-major instance list. Here:
//   1. the visible Gaussians (ascending index) are sorted stably by their depth bits: 4-byte keys, one per
//      Gaussian, not one per instance;
//   2. their instances are emitted in that order, keyed by the tile id alone;
//   3. a stable sort on the tile bits (13 at 1920x1080: 2 radix passes, where the 45-bit key needed 6).
// A stable sort by tile of a list in (depth, index) order is in (tile, depth, index) order: the reference
// order, with 4-byte keys. Both sorts run on CUB double buffers (no copy of the result), so the instances
// cost 16 bytes each during binning, and the stage's scratch is freed before the blend allocates its images.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>

#include "cuda/bin.h"
#include "cuda/common.cuh"
#include "tilegrad/core/cuda/radix_bits.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
using U32 = std::uint32_t;

// Runs a CUB device algorithm: once for the size of its temporary storage, once with storage for this call.
template <class F>
void run_cub(F&& algorithm) {
  std::size_t bytes = 0;
  TG_CUDA_CHECK(algorithm(nullptr, bytes));
  Buffer<std::byte> temp(bytes > 0 ? bytes : 1, Device::Cuda);
  TG_CUDA_CHECK(algorithm(static_cast<void*>(temp.data()), bytes));
}

struct Touches {
  const U32* tiles_touched;
  __device__ bool operator()(U32 g) const { return tiles_touched[g] != 0; }
};

__global__ void depth_keys_kernel(std::size_t count, const U32* ids, const float* proj, U32* keys) {
  const std::size_t i = global_thread();
  if (i < count) keys[i] = depth_bits(proj[std::size_t(ids[i]) * kProjWidth + cpu::kDepth]);
}

// The i-th Gaussian front to back writes its instances from first[i] on: key = tile, value = Gaussian, its
// rectangle in row-major order (backward recomputes the instance slot from the tile and the rectangle).
__global__ void emit_kernel(std::size_t count, const U32* order, const U32* first, const float* proj, TileGrid grid,
                            U32* tiles, U32* gaussians) {
  const std::size_t i = global_thread();
  if (i >= count) return;
  const U32 g = order[i];
  const TileRect rect = cpu::record_tiles(proj + std::size_t(g) * kProjWidth, grid);
  std::size_t out = first[i];
  for (int ty = rect.y0; ty < rect.y1; ++ty)
    for (int tx = rect.x0; tx < rect.x1; ++tx, ++out) {
      tiles[out] = static_cast<U32>(ty * grid.tiles_x + tx);
      gaussians[out] = g;
    }
}

// tile_start[t] = first sorted instance whose tile is >= t, for t in [0, tiles].
__global__ void tile_start_kernel(const U32* sorted_tiles, std::size_t count, int tiles, U32* tile_start) {
  const std::size_t t = global_thread();
  if (t > std::size_t(tiles)) return;
  std::size_t lo = 0, hi = count;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (sorted_tiles[mid] < t) lo = mid + 1; else hi = mid;
  }
  tile_start[t] = static_cast<U32>(lo);
}

// The visible Gaussians front to back (ties by index).
Buffer<U32> depth_order(const DeviceState& s, std::size_t n, const U32* tiles_touched) {
  const int visible = static_cast<int>(s.visible);
  Buffer<U32> ids[2] = {Buffer<U32>(s.visible, Device::Cuda), Buffer<U32>(s.visible, Device::Cuda)};
  Buffer<U32> keys[2] = {Buffer<U32>(s.visible, Device::Cuda), Buffer<U32>(s.visible, Device::Cuda)};
  Buffer<U32> selected(1, Device::Cuda);
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceSelect::If(temp, bytes, thrust::counting_iterator<U32>(0), ids[0].data(), selected.data(),
                                 static_cast<int>(n), Touches{tiles_touched});
  });
  cuda::launch(depth_keys_kernel, s.visible, kBlock, 0, s.visible, ids[0].data(), s.projected.data(), keys[0].data());
  cub::DoubleBuffer<U32> k(keys[0].data(), keys[1].data()), v(ids[0].data(), ids[1].data());
  run_cub([&](void* temp, std::size_t& bytes) { return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, visible); });
  return std::move(ids[v.selector]);
}

}  // namespace

void bin_instances(DeviceState& s, std::size_t n, const U32* tiles_touched) {
  const std::size_t tiles = std::size_t(s.grid.count());
  s.tile_start = Buffer<U32>(tiles + 1, Device::Cuda);
  if (s.instances == 0) {
    s.sorted_gaussians = Buffer<U32>(0, Device::Cuda);
    TG_CUDA_CHECK(cudaMemsetAsync(s.tile_start.data(), 0, sizeof(U32) * (tiles + 1)));
    return;
  }
  const Buffer<U32> order = depth_order(s, n, tiles_touched);
  Buffer<U32> first(s.visible, Device::Cuda);
  const auto counts_in_order = thrust::make_permutation_iterator(tiles_touched, order.data());
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, counts_in_order, first.data(), static_cast<int>(s.visible));
  });
  Buffer<U32> keys[2] = {Buffer<U32>(s.instances, Device::Cuda), Buffer<U32>(s.instances, Device::Cuda)};
  Buffer<U32> values[2] = {Buffer<U32>(s.instances, Device::Cuda), Buffer<U32>(s.instances, Device::Cuda)};
  cuda::launch(emit_kernel, s.visible, kBlock, 0, s.visible, order.data(), first.data(), s.projected.data(), s.grid,
               keys[0].data(), values[0].data());
  cub::DoubleBuffer<U32> k(keys[0].data(), keys[1].data()), v(values[0].data(), values[1].data());
  const int end_bit = cuda::radix_bits(tiles - 1);  // tile ids < tiles: higher bits are zero
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, static_cast<int>(s.instances), 0, end_bit);
  });
  cuda::launch(tile_start_kernel, tiles + 1, kBlock, 0, k.Current(), s.instances, int(tiles), s.tile_start.data());
  s.sorted_gaussians = std::move(values[v.selector]);
}

}  // namespace tilegrad::raster::cuda_backend
