// Host-side work layouts of the backward pass:
//  - edge curves (sphere silhouettes, and the circles where two spheres meet) with their sample counts
//    (from the visible length of the curve in the image);
//  - tile tables: for each 16 x 16 pixel tile, the sorted spheres its samples can contribute to
//    (conservative: spheres whose projected bounds overlap the tile, plus every light and, when the backward
//    samples them, every dormant light, plus every sphere for paths with bounces);
//  - the Owned layout: per sphere, one contiguous segment holding its interior partials, then one row per
//    sample chunk (edge_chunks) of each edge curve it moves; every producer writes straight into its slots.
//    The interior partials are one per tile that lists the sphere, or, for a backend whose blocks each work
//    through many tiles (CUDA with few spheres), one per block: row segments[s] + b of sphere s for block b.
#pragma once
#include <cstdint>
#include <vector>

#include "prepared_scene.h"
#include "tilegrad/pathtracer/edge_sample.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::pathtracer {

inline constexpr int kTileSize = 16;         // pixels per tile side: one 256-thread block per tile
inline constexpr int kTileCapacity = 64;     // spheres a tile may list for the Owned strategy

struct EdgeLayout {
  std::vector<EdgeCurve> curves;  // silhouettes by sphere, then intersections by (a, b); no empty curve
  std::size_t samples = 0;
  std::size_t total() const { return samples; }
};

struct TileTables {
  int tiles_x = 0, tiles_y = 0;
  std::vector<std::uint32_t> offsets;  // [tiles + 1]
  std::vector<std::uint32_t> ids;      // sphere ids per tile, ascending
  int max_per_tile = 0;
  bool fits() const { return max_per_tile <= kTileCapacity; }
  std::size_t tiles() const { return static_cast<std::size_t>(tiles_x) * tiles_y; }
};

struct OwnedLayout {
  std::vector<std::uint32_t> segments;   // [spheres + 1]: rows of sphere s
  std::vector<std::uint32_t> pair_slot;  // [tile table entries]: row of (tile, k); empty with block rows
  std::uint32_t block_rows = 0;          // interior partials per sphere, one per block (0: one per listing tile)
  // With block rows: block b takes tiles tile_order[b], tile_order[b + block_rows], ...: tiles dealt out
  // by the number of spheres they list (a cost estimate), most first, in snake order, so that every block
  // gets a like share of expensive tiles (the assignment is static, for fixed bits).
  std::vector<std::uint32_t> tile_order;
  std::uint32_t max_rows = 0;            // the longest segment
  std::size_t rows() const { return segments.empty() ? 0 : segments.back(); }
};

template <class T>
EdgeLayout edge_layout(const PreparedScene<T>& scene, const GradientSettings& settings);
// dormant: the backward samples the scene's dormant lights (samples_dormant).
template <class T>
TileTables tile_tables(const PreparedScene<T>& scene, const RenderSettings& settings, bool dormant = false);
// Also sets the curves' row_a / row_b. block_rows > 0: that many interior rows for every sphere instead of
// one per tile that lists it.
OwnedLayout owned_layout(const TileTables& tiles, EdgeLayout& edges, std::size_t num_spheres,
                         std::uint32_t block_rows = 0);

// Pairs (a < b) of spheres that overlap without one containing the other.
template <class T>
std::vector<std::pair<int, int>> intersecting_pairs(const PreparedScene<T>& scene);

}  // namespace tilegrad::pathtracer
