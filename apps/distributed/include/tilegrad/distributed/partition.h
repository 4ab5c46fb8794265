// The host-side logic of Gaussian-partitioned training (docs/TRAINING.md, "Gaussian-partitioned training"):
// Gaussians in a spatial (Morton) order cut into contiguous ranges, one per rank; each view's tile grid cut into
// one rectangle of tiles per rank with about equal work; the exchange plans of the sparse all-to-alls. Pure
// functions of their inputs (integers where a decision is taken), so every rank reaches the same plan.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::distributed {

// Part r of `total` items over `ranks` is [begin[r], begin[r + 1]): sizes differ by at most one, larger first.
std::vector<std::size_t> balanced_ranges(std::size_t total, int ranks);

// Z-order (Morton) code of each point [N, 3] in the points' bounding box, 21 bits per axis.
std::vector<std::uint64_t> morton_codes(const std::vector<float>& xyz);
// The permutation that sorts points by Morton code (ties by index): nearby points get nearby positions.
std::vector<std::uint32_t> morton_order(const std::vector<float>& xyz);
// The Gaussians (on any device) reordered by morton_order of their means, on the host.
raster::Gaussians spatially_ordered(const raster::Gaussians& gaussians);

// Work per tile [tiles_y * tiles_x], row-major, from the difference array [(tiles_y + 1) * (tiles_x + 1)] in which
// every Gaussian's tile rectangle [x0, x1) x [y0, y1) added +1 at (x0, y0) and (x1, y1) and -1 at (x1, y0) and
// (x0, y1): its 2D prefix sum is the number of (Gaussian, tile) instances per tile.
std::vector<std::int64_t> tile_instances(const std::vector<int>& differences, int tiles_x, int tiles_y);

// The work model of a tile: its instances plus kTileBaseWork (the per-pixel work of a tile without Gaussians).
constexpr std::int64_t kTileBaseWork = 8;

// `ranks` rectangles of tiles covering the grid, of about equal total work, by recursive bisection: the ranks
// split in halves (the first half has floor(k / 2)), the rectangle along its longer side at the cut whose work
// share is closest to the halves' ratio (earliest cut on ties). A rectangle of one tile given to several ranks
// goes to the first; the others get empty rectangles.
std::vector<raster::TileRect> split_regions(const std::vector<std::int64_t>& work, int tiles_x, int tiles_y,
                                            int ranks);

// A region grown by `halo` tiles on every side, clipped to the grid (an empty region stays empty).
raster::TileRect grow_region(const raster::TileRect& region, int halo, int tiles_x, int tiles_y);

// Pixels [x0, x1) x [y0, y1) of a tile rectangle in a width x height image.
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};
PixelRect pixel_rect(const raster::TileRect& tiles, int width, int height);

// The buffers of one rank's side of a sparse all-to-all of fixed-size rows, from the matrix of row counts
// counts[source * ranks + destination] (every rank knows all of it): rows to each destination are sent from
// consecutive blocks of the send buffer in destination order, rows from each source arrive in source order.
struct ExchangePlan {
  std::vector<std::size_t> send_bytes, send_offsets, recv_bytes, recv_offsets;  // per rank, in bytes
  std::vector<std::size_t> send_rows, recv_rows;                                // per rank
  std::size_t send_total = 0, recv_total = 0;                                   // rows
};
ExchangePlan plan_exchange(const std::vector<std::uint64_t>& counts, int ranks, int rank, std::size_t row_bytes);
// The same matrix sent backwards (every destination returns as many rows to each source as it received).
std::vector<std::uint64_t> transposed(const std::vector<std::uint64_t>& counts, int ranks);

// Rows that move from `rank` to every rank when the ranges of the global order change from old_begin to
// new_begin (both of size ranks + 1): counts[source * ranks + destination].
std::vector<std::uint64_t> moves_between_ranges(const std::vector<std::size_t>& old_begin,
                                                const std::vector<std::size_t>& new_begin);

}  // namespace tilegrad::distributed
