// Internal: the forward state kept on the GPU for the backward (plain C++: no CUDA headers).
//
// Per-Gaussian state is packed: only the V visible Gaussians (finite record, at least one tile) keep one,
// numbered v = 0..V-1 in ascending Gaussian index. Ties in depth are ordered by v, which orders like the index,
// so instances sort by (tile, depth, Gaussian index) exactly as with one record per Gaussian, and images and
// gradients keep their bits. Of the N Gaussians only two bits each remain: the visibility mask and the count of
// visible Gaussians before each of its words, from which the backward finds v for every Gaussian g
// (visible_index in common.cuh).
#pragma once
#include <cstdint>

#include "backend.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/rasterizer/element/record.h"

namespace tilegrad::raster::cuda_backend {

struct DeviceState final : ForwardState {  // instances I, visible V
  ProjectionSettings projection{};
  RasterSettings settings{};
  std::uint32_t max_tiles = 0;                 // the most tiles (instances) of one Gaussian
  Buffer<std::uint32_t> visible_mask;          // [ceil(N / 32)] bit g % 32 of word g / 32: Gaussian g is visible
  Buffer<std::uint32_t> visible_before;        // [ceil(N / 32) + 1] visible Gaussians in the words before; last: V
  Buffer<float> projected;                     // [V, kProjWidth] projection records (record.h)
  Buffer<std::uint8_t> clamped;                // [V]
  Buffer<std::uint32_t> offsets;               // [V + 1] instance slots of each visible Gaussian
  Buffer<std::uint32_t> sorted_visible;        // [I] visible index v of each tile-sorted instance
  Buffer<std::uint32_t> tile_start;            // [tiles + 1]
  Buffer<std::uint32_t> tile_order;            // [tiles] by descending instance count (ties by tile id)
  Buffer<std::uint16_t> contributors;          // [H * W] last contributor (contributors.cuh), tiles of <= 65535
  Buffer<std::uint32_t> contributors_wide;     // [I / 65536 * 256] the same for the pixels of denser tiles
  Buffer<float> final_transmittance;           // [H * W]
  const TileGrid& grid() const { return projection.grid; }
};

}  // namespace tilegrad::raster::cuda_backend
