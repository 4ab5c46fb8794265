// Spatial order, ranges, tile work, region bisection and exchange plans (partition.h).
#include "tilegrad/distributed/partition.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tilegrad/core/error.h"

namespace tilegrad::distributed {

std::vector<std::size_t> balanced_ranges(std::size_t total, int ranks) {
  TG_CHECK_ARG(ranks >= 1, "balanced_ranges: need at least one rank, got ", ranks);
  std::vector<std::size_t> begin(std::size_t(ranks) + 1, 0);
  const std::size_t base = total / std::size_t(ranks), extra = total % std::size_t(ranks);
  for (std::size_t r = 0; r < std::size_t(ranks); ++r) begin[r + 1] = begin[r] + base + (r < extra ? 1 : 0);
  return begin;
}

namespace {
// Spreads the low 21 bits of v to every third bit.
std::uint64_t spread3(std::uint64_t v) {
  v &= 0x1FFFFF;
  v = (v | v << 32) & 0x1F00000000FFFFull;
  v = (v | v << 16) & 0x1F0000FF0000FFull;
  v = (v | v << 8) & 0x100F00F00F00F00Full;
  v = (v | v << 4) & 0x10C30C30C30C30C3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}
}  // namespace

std::vector<std::uint64_t> morton_codes(const std::vector<float>& xyz) {
  TG_CHECK_ARG(xyz.size() % 3 == 0, "morton_codes: expected [N, 3] points, got ", xyz.size(), " floats");
  const std::size_t n = xyz.size() / 3;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      if (std::isfinite(xyz[3 * i + a])) {
        lo[a] = std::min(lo[a], xyz[3 * i + a]);
        hi[a] = std::max(hi[a], xyz[3 * i + a]);
      }
  std::vector<std::uint64_t> codes(n);
  constexpr double kCells = double((1u << 21) - 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t code = 0;
    for (int a = 0; a < 3; ++a) {
      const double range = double(hi[a]) - double(lo[a]);
      const double t = range > 0 && std::isfinite(xyz[3 * i + a]) ? (double(xyz[3 * i + a]) - lo[a]) / range : 0.0;
      code |= spread3(std::uint64_t(std::clamp(t, 0.0, 1.0) * kCells)) << a;
    }
    codes[i] = code;
  }
  return codes;
}

std::vector<std::uint32_t> morton_order(const std::vector<float>& xyz) {
  const std::vector<std::uint64_t> codes = morton_codes(xyz);
  TG_CHECK_ARG(codes.size() < (std::size_t(1) << 32), "morton_order: more than 2^32 points");
  std::vector<std::uint32_t> order(codes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return codes[a] < codes[b]; });
  return order;
}

raster::Gaussians spatially_ordered(const raster::Gaussians& g) {
  const raster::Gaussians host = g.to(Device::Cpu);
  const std::vector<std::uint32_t> order = morton_order(host.means.to_vector());
  raster::Gaussians out = raster::Gaussians::allocate(host.count(), host.sh_degree, Device::Cpu);
  auto permute = [&](const Buffer<float>& src, Buffer<float>& dst) {
    if (src.empty()) return;
    const std::size_t w = src.size() / host.count();
    for (std::size_t i = 0; i < order.size(); ++i)
      std::copy_n(src.data() + std::size_t(order[i]) * w, w, dst.data() + i * w);
  };
  permute(host.means, out.means);
  permute(host.log_scales, out.log_scales);
  permute(host.quats, out.quats);
  permute(host.opacity_logits, out.opacity_logits);
  permute(host.sh, out.sh);
  if (!host.colors.empty()) {
    out.colors = Buffer<float>(host.colors.size(), Device::Cpu);
    permute(host.colors, out.colors);
  }
  return out;
}

std::vector<std::int64_t> tile_instances(const std::vector<int>& diff, int tiles_x, int tiles_y) {
  const std::size_t w = std::size_t(tiles_x) + 1;
  TG_CHECK_ARG(diff.size() == w * (std::size_t(tiles_y) + 1), "tile_instances: difference array of ", diff.size(),
               " entries for ", tiles_x, "x", tiles_y, " tiles");
  std::vector<std::int64_t> work(static_cast<std::size_t>(tiles_x) * std::size_t(tiles_y));
  std::vector<std::int64_t> column(w, 0);  // running sums down each column
  for (int y = 0; y < tiles_y; ++y) {
    std::int64_t row = 0;
    for (int x = 0; x < tiles_x; ++x) {
      column[std::size_t(x)] += diff[std::size_t(y) * w + std::size_t(x)];
      row += column[std::size_t(x)];
      work[std::size_t(y) * std::size_t(tiles_x) + std::size_t(x)] = row;
    }
  }
  return work;
}

namespace {

struct Bisection {
  const std::vector<std::int64_t>& work;
  int tiles_x;
  std::vector<raster::TileRect>& out;

  std::int64_t slab(const raster::TileRect& r, bool along_x, int i) const {  // work of column/row i of r
    std::int64_t s = 0;
    if (along_x) {
      for (int y = r.y0; y < r.y1; ++y) s += work[std::size_t(y) * std::size_t(tiles_x) + std::size_t(i)];
    } else {
      for (int x = r.x0; x < r.x1; ++x) s += work[std::size_t(i) * std::size_t(tiles_x) + std::size_t(x)];
    }
    return s;
  }

  void split(const raster::TileRect& r, int first, int count) {
    const int w = r.x1 - r.x0, h = r.y1 - r.y0;
    if (count == 1 || (w <= 1 && h <= 1)) {
      out[std::size_t(first)] = r;
      for (int k = 1; k < count; ++k) out[std::size_t(first + k)] = {0, 0, 0, 0};
      return;
    }
    const bool along_x = w >= h;  // cut across the longer side
    const int lo = along_x ? r.x0 : r.y0, hi = along_x ? r.x1 : r.y1;
    std::vector<std::int64_t> prefix(std::size_t(hi - lo) + 1, 0);
    for (int i = lo; i < hi; ++i) prefix[std::size_t(i - lo) + 1] = prefix[std::size_t(i - lo)] + slab(r, along_x, i);
    const int left = count / 2;
    const std::int64_t total = prefix.back();
    // Cut c (1 <= c < hi - lo) minimising |prefix[c] count - total left|: integers, so every rank agrees.
    int best = 1;
    std::int64_t best_err = -1;
    for (int c = 1; c < hi - lo; ++c) {
      const std::int64_t err = std::llabs(prefix[std::size_t(c)] * count - total * left);
      if (best_err < 0 || err < best_err) {
        best_err = err;
        best = c;
      }
    }
    raster::TileRect a = r, b = r;
    if (along_x) {
      a.x1 = b.x0 = lo + best;
    } else {
      a.y1 = b.y0 = lo + best;
    }
    split(a, first, left);
    split(b, first + left, count - left);
  }
};

}  // namespace

std::vector<raster::TileRect> split_regions(const std::vector<std::int64_t>& work, int tiles_x, int tiles_y,
                                            int ranks) {
  TG_CHECK_ARG(ranks >= 1, "split_regions: need at least one rank");
  TG_CHECK_ARG(tiles_x >= 0 && tiles_y >= 0 && work.size() == std::size_t(tiles_x) * std::size_t(tiles_y),
               "split_regions: ", work.size(), " work entries for ", tiles_x, "x", tiles_y, " tiles");
  for (std::int64_t w : work) TG_CHECK_ARG(w >= 0, "split_regions: negative tile work ", w);
  std::vector<raster::TileRect> out(std::size_t(ranks), raster::TileRect{0, 0, 0, 0});
  if (tiles_x == 0 || tiles_y == 0) return out;
  Bisection b{work, tiles_x, out};
  b.split({0, 0, tiles_x, tiles_y}, 0, ranks);
  return out;
}

raster::TileRect grow_region(const raster::TileRect& r, int halo, int tiles_x, int tiles_y) {
  if (r.area() == 0) return {0, 0, 0, 0};
  return {std::max(r.x0 - halo, 0), std::max(r.y0 - halo, 0), std::min(r.x1 + halo, tiles_x),
          std::min(r.y1 + halo, tiles_y)};
}

PixelRect pixel_rect(const raster::TileRect& t, int width, int height) {
  if (t.area() == 0) return {};
  PixelRect p;
  p.x0 = std::min(t.x0 * raster::kTileSize, width);
  p.y0 = std::min(t.y0 * raster::kTileSize, height);
  p.x1 = std::min(t.x1 * raster::kTileSize, width);
  p.y1 = std::min(t.y1 * raster::kTileSize, height);
  return p;
}

ExchangePlan plan_exchange(const std::vector<std::uint64_t>& counts, int ranks, int rank, std::size_t row_bytes) {
  const std::size_t n = std::size_t(ranks), me = std::size_t(rank);
  TG_CHECK_ARG(counts.size() == n * n, "plan_exchange: ", counts.size(), " counts for ", ranks, " ranks");
  TG_CHECK_ARG(rank >= 0 && rank < ranks, "plan_exchange: rank ", rank, " of ", ranks);
  ExchangePlan p;
  p.send_bytes.resize(n);
  p.send_offsets.resize(n);
  p.recv_bytes.resize(n);
  p.recv_offsets.resize(n);
  p.send_rows.resize(n);
  p.recv_rows.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    p.send_rows[r] = std::size_t(counts[me * n + r]);
    p.recv_rows[r] = std::size_t(counts[r * n + me]);
    p.send_offsets[r] = p.send_total * row_bytes;
    p.recv_offsets[r] = p.recv_total * row_bytes;
    p.send_bytes[r] = p.send_rows[r] * row_bytes;
    p.recv_bytes[r] = p.recv_rows[r] * row_bytes;
    p.send_total += p.send_rows[r];
    p.recv_total += p.recv_rows[r];
  }
  return p;
}

std::vector<std::uint64_t> transposed(const std::vector<std::uint64_t>& counts, int ranks) {
  const std::size_t n = std::size_t(ranks);
  TG_CHECK_ARG(counts.size() == n * n, "transposed: ", counts.size(), " counts for ", ranks, " ranks");
  std::vector<std::uint64_t> t(n * n);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) t[d * n + s] = counts[s * n + d];
  return t;
}

std::vector<std::uint64_t> moves_between_ranges(const std::vector<std::size_t>& old_begin,
                                                const std::vector<std::size_t>& new_begin) {
  TG_CHECK_ARG(old_begin.size() == new_begin.size() && old_begin.size() >= 2 && old_begin.front() == 0 &&
                   new_begin.front() == 0 && old_begin.back() == new_begin.back(),
               "moves_between_ranges: the ranges must cover the same items");
  const std::size_t n = old_begin.size() - 1;
  std::vector<std::uint64_t> counts(n * n, 0);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t lo = std::max(old_begin[s], new_begin[d]), hi = std::min(old_begin[s + 1], new_begin[d + 1]);
      counts[s * n + d] = hi > lo ? hi - lo : 0;
    }
  return counts;
}

}  // namespace tilegrad::distributed
