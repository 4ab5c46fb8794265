// Internal: where the blend keeps each pixel's last contributor for its backward (blend.cu writes, blend_backward.cu
// reads; the layout is DeviceState::contributors and contributors_wide).
//
// A pixel's last contributor is 1 + the index, within its tile's list, of the last fragment it composited (0:
// none), so it never exceeds its tile's instance count. Tiles of at most kNarrowTileInstances instances (the
// garden workloads average 218 to 1,434 per tile) keep it in 16 bits per pixel, half the bytes of a 32-bit count.
// The pixels of a denser tile keep 32 bits in a side buffer instead. Such a tile has more instances than any
// other kind, so the descending tile order (DeviceState::tile_order) lists the dense tiles first, and there are
// at most I / (kNarrowTileInstances + 1) of them: a dense tile's entries sit at its position in that order. The
// counts are the same values either way, so images and gradients keep their bits.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cuda/device_state.h"
#include "tilegrad/rasterizer/element/tiles.h"

namespace tilegrad::raster::cuda_backend {

constexpr std::uint32_t kNarrowTileInstances = 0xFFFFu;

// Tiles that may need 32-bit counts: an upper bound on the tiles with more than kNarrowTileInstances instances.
inline std::size_t dense_tile_bound(std::size_t instances) { return instances / (kNarrowTileInstances + 1); }

// The blend writes through ContributorArrays<std::uint16_t, std::uint32_t>, its backward reads through the const
// form.
template <class Narrow, class Wide>
struct ContributorArrays {
  Narrow* narrow;                   // [H * W]
  Wide* wide;                       // [dense_tiles * kTilePixels]
  const std::uint32_t* tile_order;  // the forward's, densest tile first
  std::uint32_t dense_tiles;        // dense_tile_bound(I)

  __device__ static bool dense(std::uint32_t tile_instances) { return tile_instances > kNarrowTileInstances; }
  // The wide entry of pixel (x, y) of dense tile `tile`: its position among the first dense_tiles of the order.
  __device__ std::size_t wide_index(int tile, int x, int y) const {
    std::uint32_t p = 0;
    while (p + 1 < dense_tiles && tile_order[p] != std::uint32_t(tile)) ++p;
    return std::size_t(p) * kTilePixels + std::size_t((y % kTileSize) * kTileSize + x % kTileSize);
  }
  // Pixel (x, y), flat index pix, of `tile`, which holds tile_instances instances.
  __device__ void store(std::uint32_t tile_instances, int tile, int x, int y, std::size_t pix,
                        std::uint32_t count) const {
    if (dense(tile_instances)) wide[wide_index(tile, x, y)] = count;
    else narrow[pix] = static_cast<std::uint16_t>(count);
  }
  __device__ std::uint32_t load(std::uint32_t tile_instances, int tile, int x, int y, std::size_t pix) const {
    return dense(tile_instances) ? wide[wide_index(tile, x, y)] : std::uint32_t(narrow[pix]);
  }
};
using ContributorWriter = ContributorArrays<std::uint16_t, std::uint32_t>;
using ContributorReader = ContributorArrays<const std::uint16_t, const std::uint32_t>;

// The arrays of s (allocated by the forward before its blend).
inline ContributorWriter contributor_writer(DeviceState& s) {
  return {s.contributors.data(), s.contributors_wide.data(), s.tile_order.data(),
          static_cast<std::uint32_t>(dense_tile_bound(s.instances))};
}
inline ContributorReader contributor_reader(const DeviceState& s) {
  return {s.contributors.data(), s.contributors_wide.data(), s.tile_order.data(),
          static_cast<std::uint32_t>(dense_tile_bound(s.instances))};
}

}  // namespace tilegrad::raster::cuda_backend
