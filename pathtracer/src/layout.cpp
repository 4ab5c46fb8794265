// Edge sample counts, tile tables and the Owned slot layout (see layout.h).
#include "layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {
namespace {

// Length of a curve inside the image (pixels) and the fraction of its angle range phi that lands there,
// by quadrature over kQuadrature angles.
template <class T>
void visible_length(const SceneView<T>& sc, const EdgeCurve& e, double& length, double& fraction) {
  constexpr int kQuadrature = 64;
  length = 0.0;
  fraction = 0.0;
  const CameraT<T>& cam = sc.camera;
  const Vec3<T> oc = sc.center(e.a) - cam.position;
  if (!(dot(oc, oc) > sc.radius(e.a) * sc.radius(e.a))) return;
  for (int i = 0; i < kQuadrature; ++i) {
    const T phi = T(2 * kPi) * (T(i) + T(0.5)) / T(kQuadrature);
    const auto pc = to_camera(cam, detail::curve_point(sc, e, phi));
    if (!(pc[2].v > T(1e-6) * sc.radius(e.a))) continue;
    const auto x = project_camera(cam, pc);
    const double margin = 1.0;
    if (x[0].v < -margin || x[1].v < -margin || x[0].v > cam.width + margin || x[1].v > cam.height + margin) continue;
    const double speed = std::sqrt(double(x[0].d[0]) * double(x[0].d[0]) + double(x[1].d[0]) * double(x[1].d[0]));
    length += speed * (2 * kPi / kQuadrature);
    fraction += 1.0 / kQuadrature;
  }
}

// Pixel bounds [x0, x1] x [y0, y1] that contain the sphere's image (projected camera-space box corners),
// or the whole image when the sphere reaches behind the camera plane; false when entirely behind.
template <class T>
bool projected_bounds(const CameraT<T>& cam, const Vec3<T>& c, T r, double& x0, double& x1, double& y0, double& y1) {
  const Vec3<T> cc = to_camera(cam, c);
  if (cc[2] + r <= T(0)) return false;
  x0 = 0;
  y0 = 0;
  x1 = cam.width;
  y1 = cam.height;
  if (cc[2] - r <= T(1e-6) * r) return true;
  x0 = y0 = std::numeric_limits<double>::infinity();
  x1 = y1 = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < 8; ++k) {
    const Vec3<T> corner = {{cc[0] + ((k & 1) ? r : -r), cc[1] + ((k & 2) ? r : -r), cc[2] + ((k & 4) ? r : -r)}};
    const Vec2<T> p = project_camera(cam, corner);
    x0 = std::min(x0, double(p[0]));
    x1 = std::max(x1, double(p[0]));
    y0 = std::min(y0, double(p[1]));
    y1 = std::max(y1, double(p[1]));
  }
  return true;
}

// Tile index of pixel coordinate v, kept in int range for bounds far outside the image.
int tile_of(double v) { return static_cast<int>(std::floor(std::clamp(v, -1e6, 1e6) / kTileSize)); }

}  // namespace

template <class T>
std::vector<std::pair<int, int>> intersecting_pairs(const PreparedScene<T>& scene) {
  std::vector<std::pair<int, int>> pairs;
  const Bvh& bvh = scene.bvh;
  if (bvh.nodes.empty()) return pairs;
  std::vector<int> stack;
  for (std::size_t i = 0; i < scene.geometry.size(); ++i) {
    const SphereGeometry<T>& gi = scene.geometry[i];
    const double c[3] = {double(gi.x), double(gi.y), double(gi.z)}, r = double(gi.r);
    stack.assign(1, 0);
    while (!stack.empty()) {
      const BvhNode& n = bvh.nodes[stack.back()];
      stack.pop_back();
      bool overlaps = true;
      for (int k = 0; k < 3; ++k) overlaps = overlaps && c[k] + r >= n.lo[k] && c[k] - r <= n.hi[k];
      if (!overlaps) continue;
      if (n.count == 0) {
        stack.push_back(n.first);
        stack.push_back(n.first + 1);
        continue;
      }
      for (int k = n.first; k < n.first + n.count; ++k) {
        const std::uint32_t j = bvh.order[k];
        if (j <= i) continue;
        const SphereGeometry<T>& gj = scene.geometry[j];
        const double dx = double(gj.x) - c[0], dy = double(gj.y) - c[1], dz = double(gj.z) - c[2];
        const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (d < r + double(gj.r) && d > std::fabs(r - double(gj.r))) pairs.emplace_back(int(i), int(j));
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

template <class T>
EdgeLayout edge_layout(const PreparedScene<T>& scene, const GradientSettings& gs) {
  std::vector<EdgeCurve> candidates;
  for (std::size_t i = 0; i < scene.num_spheres(); ++i) candidates.push_back({static_cast<std::int32_t>(i), -1});
  for (const auto& [a, b] : intersecting_pairs(scene)) candidates.push_back({a, b});
  const SceneView<T> sc = scene.view();
  const auto count = static_cast<std::ptrdiff_t>(candidates.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    double length, fraction;
    visible_length(sc, candidates[i], length, fraction);
    if (fraction <= 0.0) continue;
    // Samples are uniform in phi: aim edge_density per visible pixel of edge, over the visible fraction.
    const double want = std::ceil(gs.edge_density * length / fraction);
    candidates[i].count =
        static_cast<std::uint32_t>(std::clamp(want, double(gs.edge_min_samples), double(gs.edge_max_samples)));
  }
  EdgeLayout e;
  std::uint64_t total = 0;
  for (EdgeCurve c : candidates) {
    if (c.count == 0) continue;
    c.first = static_cast<std::uint32_t>(total);
    total += c.count;
    TG_CHECK_ARG(total < (std::uint64_t(1) << 30), "edge sampling: more than 2^30 edge samples; lower edge_density");
    e.curves.push_back(c);
  }
  e.samples = static_cast<std::size_t>(total);
  return e;
}

template <class T>
TileTables tile_tables(const PreparedScene<T>& scene, const RenderSettings& rs, bool dormant) {
  TileTables t;
  const CameraT<T>& cam = scene.camera;
  t.tiles_x = (cam.width + kTileSize - 1) / kTileSize;
  t.tiles_y = (cam.height + kTileSize - 1) / kTileSize;
  const std::size_t tiles = t.tiles();
  const std::size_t n = scene.num_spheres();
  // Spheres listed by every tile: all of them for bounces and soft visibility, else the lights (and the
  // dormant lights when they are sampled).
  const bool everything = rs.soft || (rs.integrator == Integrator::Path && rs.max_depth > 1);
  std::vector<char> global(n, everything ? 1 : 0);
  for (std::int32_t l : scene.lights) global[l] = 1;
  if (dormant)
    for (std::int32_t l : scene.dormant) global[l] = 1;
  std::vector<std::uint32_t> shared;
  for (std::size_t i = 0; i < n; ++i)
    if (global[i]) shared.push_back(static_cast<std::uint32_t>(i));

  // (tile, sphere) pairs of the camera-hit candidates, bucketed by tile with a counting sort.
  std::vector<std::uint32_t> per_tile(tiles + 1, 0);
  std::vector<std::array<int, 4>> rect(n, {0, -1, 0, -1});
  for (std::size_t i = 0; i < n; ++i) {
    if (global[i]) continue;
    const SphereGeometry<T>& g = scene.geometry[i];
    double x0, x1, y0, y1;
    if (!projected_bounds(cam, Vec3<T>{{g.x, g.y, g.z}}, g.r, x0, x1, y0, y1)) continue;
    // One pixel of margin against rounding; clamp to the image.
    const int tx0 = std::max(0, tile_of(x0 - 1)), tx1 = std::min(t.tiles_x - 1, tile_of(x1 + 1));
    const int ty0 = std::max(0, tile_of(y0 - 1)), ty1 = std::min(t.tiles_y - 1, tile_of(y1 + 1));
    if (tx0 > tx1 || ty0 > ty1) continue;
    rect[i] = {tx0, tx1, ty0, ty1};
    for (int ty = ty0; ty <= ty1; ++ty)
      for (int tx = tx0; tx <= tx1; ++tx) ++per_tile[static_cast<std::size_t>(ty) * t.tiles_x + tx + 1];
  }
  for (std::size_t k = 0; k < tiles; ++k) per_tile[k + 1] += per_tile[k];
  std::vector<std::uint32_t> local(per_tile.back());
  {
    std::vector<std::uint32_t> cursor(per_tile.begin(), per_tile.end() - 1);
    for (std::size_t i = 0; i < n; ++i)  // ascending ids within each tile
      for (int ty = rect[i][2]; ty <= rect[i][3]; ++ty)
        for (int tx = rect[i][0]; tx <= rect[i][1]; ++tx)
          local[cursor[static_cast<std::size_t>(ty) * t.tiles_x + tx]++] = static_cast<std::uint32_t>(i);
  }
  // Merge each tile's candidates with the shared spheres (both ascending, disjoint).
  t.offsets.assign(tiles + 1, 0);
  t.ids.reserve(local.size() + tiles * shared.size());
  for (std::size_t k = 0; k < tiles; ++k) {
    const std::size_t before = t.ids.size();
    std::merge(local.begin() + per_tile[k], local.begin() + per_tile[k + 1], shared.begin(), shared.end(),
               std::back_inserter(t.ids));
    TG_CHECK_ARG(t.ids.size() < (std::size_t(1) << 31), "tile tables: more than 2^31 (tile, sphere) pairs");
    t.offsets[k + 1] = static_cast<std::uint32_t>(t.ids.size());
    t.max_per_tile = std::max(t.max_per_tile, static_cast<int>(t.ids.size() - before));
  }
  return t;
}

namespace {
// See OwnedLayout::tile_order. Round r hands the next `blocks` tiles to blocks 0, 1, ... (r even) or in
// reverse (r odd); a last, partial round goes to the first blocks, as the kernel's loop expects.
std::vector<std::uint32_t> dealt_tiles(const TileTables& tiles, std::uint32_t blocks) {
  const std::size_t n = tiles.tiles();
  std::vector<std::uint32_t> by_cost(n);
  std::iota(by_cost.begin(), by_cost.end(), 0u);
  auto listed = [&](std::uint32_t t) { return tiles.offsets[t + 1] - tiles.offsets[t]; };
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](std::uint32_t a, std::uint32_t b) { return listed(a) > listed(b); });
  std::vector<std::uint32_t> order(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t round = k / blocks, pos = k % blocks;
    const bool reverse = round % 2 == 1 && (round + 1) * blocks <= n;
    order[round * blocks + (reverse ? blocks - 1 - pos : pos)] = by_cost[k];
  }
  return order;
}
}  // namespace

OwnedLayout owned_layout(const TileTables& tiles, EdgeLayout& edges, std::size_t n, std::uint32_t block_rows) {
  OwnedLayout o;
  o.block_rows = block_rows;
  std::vector<std::uint64_t> rows_of(n, block_rows);
  if (block_rows == 0)
    for (std::uint32_t id : tiles.ids) ++rows_of[id];
  for (const EdgeCurve& c : edges.curves) {
    rows_of[c.a] += edge_chunks(c);
    if (c.b >= 0) rows_of[c.b] += edge_chunks(c);
  }
  o.segments.assign(n + 1, 0);
  std::uint64_t rows = 0;
  for (std::size_t s = 0; s < n; ++s) {
    rows += rows_of[s];
    TG_CHECK_ARG(rows < (std::uint64_t(1) << 31), "Owned layout: more than 2^31 partial rows");
    o.segments[s + 1] = static_cast<std::uint32_t>(rows);
    o.max_rows = std::max(o.max_rows, static_cast<std::uint32_t>(rows_of[s]));
  }
  // Each segment: interior partials (by block, or by tile in tile order), then the curves' sample chunks in
  // curve order.
  std::vector<std::uint32_t> cursor(o.segments.begin(), o.segments.end() - 1);
  if (block_rows > 0) {
    for (std::uint32_t& c : cursor) c += block_rows;
    o.tile_order = dealt_tiles(tiles, block_rows);
  } else {
    o.pair_slot.resize(tiles.ids.size());
    for (std::size_t p = 0; p < tiles.ids.size(); ++p) o.pair_slot[p] = cursor[tiles.ids[p]]++;
  }
  for (EdgeCurve& c : edges.curves) {
    c.row_a = cursor[c.a];
    cursor[c.a] += edge_chunks(c);
    if (c.b >= 0) {
      c.row_b = cursor[c.b];
      cursor[c.b] += edge_chunks(c);
    }
  }
  return o;
}

template EdgeLayout edge_layout<float>(const PreparedScene<float>&, const GradientSettings&);
template EdgeLayout edge_layout<double>(const PreparedScene<double>&, const GradientSettings&);
template TileTables tile_tables<float>(const PreparedScene<float>&, const RenderSettings&, bool);
template TileTables tile_tables<double>(const PreparedScene<double>&, const RenderSettings&, bool);
template std::vector<std::pair<int, int>> intersecting_pairs<float>(const PreparedScene<float>&);
template std::vector<std::pair<int, int>> intersecting_pairs<double>(const PreparedScene<double>&);

}  // namespace tilegrad::pathtracer
