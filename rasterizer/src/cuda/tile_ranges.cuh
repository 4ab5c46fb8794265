// Internal: what both CUDA binnings (bin.cu, bin_thrust.cu) do around their sort: the start of the tile ranges
// and the empty case.
#pragma once
#include <cstdint>

#include "cuda/device_state.h"
#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::raster::cuda_backend {

// The tile of a sorted key: the key itself (two-pass binning) or its high word (8-byte tile | depth keys).
struct TileKey {
  __device__ std::uint32_t operator()(std::uint32_t key) const { return key; }
  __device__ std::uint32_t operator()(std::uint64_t key) const { return static_cast<std::uint32_t>(key >> 32); }
};

// tile_start[t] = the first sorted instance whose tile is >= t, for t in [0, tiles] (a binary search per tile).
template <class Key>
__global__ void tile_start_kernel(const Key* sorted_keys, std::size_t count, int tiles, std::uint32_t* tile_start) {
  const std::size_t t = cuda::global_thread();
  if (t > std::size_t(tiles)) return;
  std::size_t lo = 0, hi = count;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (TileKey{}(sorted_keys[mid]) < t) lo = mid + 1; else hi = mid;
  }
  tile_start[t] = static_cast<std::uint32_t>(lo);
}

// Allocates s.tile_start [tiles + 1]. Without instances it is all zero, s.sorted_visible is empty and the
// binning is done: returns false.
inline bool start_binning(DeviceState& s) {
  const std::size_t tiles = std::size_t(s.grid().count());
  s.tile_start = Buffer<std::uint32_t>(tiles + 1, Device::Cuda);
  if (s.instances > 0) return true;
  s.sorted_visible = Buffer<std::uint32_t>(0, Device::Cuda);
  TG_CUDA_CHECK(cudaMemsetAsync(s.tile_start.data(), 0, sizeof(std::uint32_t) * (tiles + 1)));
  return false;
}

}  // namespace tilegrad::raster::cuda_backend
