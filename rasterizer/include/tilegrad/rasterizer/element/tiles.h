// Screen tiles: 16x16 pixels, the rectangle of tiles a footprint touches, and the sort key of an instance.
#pragma once
#include <cstdint>
#include <cstring>

#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad::raster {

constexpr int kTileSize = 16;
constexpr int kTilePixels = kTileSize * kTileSize;

struct TileGrid {
  int tiles_x, tiles_y, width, height;
  TG_HD int count() const { return tiles_x * tiles_y; }
};
TG_HD inline TileGrid make_tile_grid(int width, int height) {
  return {(width + kTileSize - 1) / kTileSize, (height + kTileSize - 1) / kTileSize, width, height};
}

// Half-open tile rectangle [x0, x1) x [y0, y1).
struct TileRect {
  int x0, y0, x1, y1;
  TG_HD int area() const { return (x1 > x0 && y1 > y0) ? (x1 - x0) * (y1 - y0) : 0; }
};

// Tiles whose pixel centres (x + 0.5, y + 0.5) can lie within half-widths (rx, ry) of the centre (u, v).
TG_HD inline TileRect footprint_tiles(float u, float v, float rx, float ry, const TileGrid& g) {
  auto lo = [](float p, int n) { return static_cast<int>(fminf(fmaxf(floorf((p - 0.5f) / kTileSize), 0.0f), float(n))); };
  auto hi = [](float p, int n) { return static_cast<int>(fminf(fmaxf(floorf((p - 0.5f) / kTileSize) + 1.0f, 0.0f), float(n))); };
  if (!(rx > 0.0f) || !(ry > 0.0f) || !is_finite(u) || !is_finite(v)) return {0, 0, 0, 0};
  return {lo(u - rx, g.tiles_x), lo(v - ry, g.tiles_y), hi(u + rx, g.tiles_x), hi(v + ry, g.tiles_y)};
}

// Positive float depths order like their bit patterns (depths are beyond the near plane, so positive).
TG_HD inline std::uint32_t depth_bits(float depth) {
  std::uint32_t bits;
  memcpy(&bits, &depth, sizeof(bits));
  return bits;
}

// Instances sort by tile, then front to back, then by Gaussian index (the order of a stable sort of the
// Gaussian-major instance list). The CUDA binning reaches the same order in two shorter sorts (cuda/bin.cu).
TG_HD inline std::uint64_t instance_key(std::uint32_t tile, float depth) {
  return (static_cast<std::uint64_t>(tile) << 32) | depth_bits(depth);
}

}  // namespace tilegrad::raster
