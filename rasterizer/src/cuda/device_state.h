// Internal: the forward state kept on the GPU for the backward (plain C++: no CUDA headers).
#pragma once
#include <cstdint>

#include "tilegrad/core/buffer.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster::cuda_backend {

struct DeviceState {
  ProjectionCamera camera{};
  TileGrid grid{};
  RasterSettings settings{};
  int active_degree = 0;
  std::size_t instances = 0, visible = 0;
  Buffer<float> projected;                     // [N, kProjWidth] (layout of cpu::Proj)
  Buffer<std::uint8_t> clamped;                // [N]
  Buffer<std::uint32_t> offsets;               // [N + 1] instance slots of each Gaussian
  Buffer<std::uint32_t> sorted_gaussians;      // [I] Gaussian of each tile-sorted instance
  Buffer<std::uint32_t> tile_start;            // [tiles + 1]
  Buffer<std::uint32_t> contributors;          // [H * W]
  Buffer<float> final_transmittance;           // [H * W]
};

}  // namespace tilegrad::raster::cuda_backend
