// Internal helpers of the CUDA rasterizer's stages: the visible index of a Gaussian, tile bands, stage timing with
// CUDA events.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::raster::cuda_backend {

constexpr unsigned kBlock = 256;

// The visible index v of Gaussian g (see device_state.h): the visible Gaussians in the words before g's, plus the
// set bits below g in its word. `visible` is false for culled Gaussians (v is then the next visible one's).
struct VisibleIndex {
  bool visible;
  std::uint32_t v;
};
__device__ inline VisibleIndex visible_index(const std::uint32_t* mask, const std::uint32_t* before, std::size_t g) {
  const std::uint32_t word = mask[g / 32], bit = 1u << (g % 32);
  return {(word & bit) != 0, before[g / 32] + std::uint32_t(__popc(word & (bit - 1)))};
}

// Small images have too few tiles to fill the GPU, and their heaviest tiles (every splat of a dense object
// centre) set the kernel's length. The blend kernels then split each tile into PARTS bands of rows, one block
// each: PARTS times more blocks, each with 1/PARTS of the tile's pixels. The choice depends on the tile count
// alone, never on the GPU, so results are the same bits on every device.
inline int tile_parts(int tiles) { return tiles < 1024 ? 4 : tiles < 2048 ? 2 : 1; }

// Sparse tiles: fewer instances than this per tile on average (garden grid 1: 218; grid 5: 456, lego: 912). The
// blend kernels then keep their one-at-a-time loops (and the backward 64 registers, 4 blocks per SM): many warps
// per SM hide the loop's latency, and it is bound by issue. Dense tiles evaluate fragments side by side instead,
// to overlap the latency few warps cannot hide (blend.cu, blend_backward.cu). Like tile_parts, the choice depends
// on the workload only, and no variant changes a value.
constexpr std::size_t kSparseTileInstances = 320;
inline bool sparse_tiles(std::size_t instances, int tiles) {
  return instances < kSparseTileInstances * std::size_t(tiles);
}

// The pixel of this thread in band blockIdx.x % PARTS of tile order[blockIdx.x / PARTS] (kTilePixels / PARTS
// threads per block, row-major within the band). The order lists the tiles by descending instance count
// (DeviceState::tile_order): blocks start roughly in index order, so the longest tiles start first and the
// short ones fill in behind them instead of a long tile starting last and running alone.
template <int PARTS>
struct TileBand {
  static_assert(PARTS == 1 || PARTS == 2 || PARTS == 4, "1, 2 or 4 bands per tile");
  static constexpr int kThreads = kTilePixels / PARTS;
  int tile, part, x, y;
  __device__ TileBand(const TileGrid& grid, const std::uint32_t* order)
      : TileBand(grid, int(order[blockIdx.x / PARTS]), int(blockIdx.x) % PARTS) {}
  __device__ TileBand(const TileGrid& grid, int tile_id, int part_index)
      : tile(tile_id),
        part(part_index),
        x((tile % grid.tiles_x) * kTileSize + int(threadIdx.x) % kTileSize),
        y((tile / grid.tiles_x) * kTileSize + part * (kTileSize / PARTS) + int(threadIdx.x) / kTileSize) {}
};

// Calls f(std::integral_constant<int, PARTS>{}) for a run-time parts value.
template <class F>
void with_parts(int parts, F&& f) {
  switch (parts) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    default: TG_ASSERT(false, "tile parts ", parts);
  }
}

// Records CUDA events between stages when timing is requested; elapsed times are read at the end.
class StageClock {
 public:
  explicit StageClock(bool on) : m_on(on) {
    if (m_on) mark();
  }
  ~StageClock() {
    for (cudaEvent_t e : m_events) TG_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
  }
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;
  void mark() {
    if (!m_on) return;
    cudaEvent_t e;
    TG_CUDA_CHECK(cudaEventCreate(&e));
    TG_CUDA_CHECK(cudaEventRecord(e, 0));
    m_events.push_back(e);
  }
  // Milliseconds between mark i and mark i + 1.
  double elapsed(std::size_t i) {
    if (!m_on || i + 1 >= m_events.size()) return 0.0;
    TG_CUDA_CHECK(cudaEventSynchronize(m_events[i + 1]));
    float ms = 0;
    TG_CUDA_CHECK(cudaEventElapsedTime(&ms, m_events[i], m_events[i + 1]));
    return ms;
  }

 private:
  bool m_on;
  std::vector<cudaEvent_t> m_events;
};

}  // namespace tilegrad::raster::cuda_backend
