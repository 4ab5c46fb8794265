// Cutting closed meshes into disks (cut.h): region growing over the triangle adjacency, hole filling and pinch
// repair, checked with the same topology routine the applications use.
#include "tilegrad/mesh/cut.h"

#include <algorithm>
#include <array>
#include <deque>

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/topology.h"

namespace tilegrad::mesh {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// For each triangle, the triangles across its three edges (kNone on a boundary).
std::vector<std::array<std::uint32_t, 3>> triangle_neighbours(const TriangleMesh& mesh) {
  struct Side {
    std::uint64_t key;
    std::uint32_t triangle;
    int corner;
  };
  std::vector<Side> sides;
  sides.reserve(mesh.triangles.size());
  for (std::size_t f = 0; f < mesh.triangle_count(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t a = mesh.triangles[3 * f + k], b = mesh.triangles[3 * f + (k + 1) % 3];
      sides.push_back({(std::uint64_t(std::min(a, b)) << 32) | std::max(a, b), static_cast<std::uint32_t>(f), k});
    }
  }
  std::sort(sides.begin(), sides.end(), [](const Side& a, const Side& b) { return a.key < b.key; });
  std::vector<std::array<std::uint32_t, 3>> n(mesh.triangle_count(), {kNone, kNone, kNone});
  for (std::size_t i = 0; i + 1 < sides.size(); ++i) {
    if (sides[i].key != sides[i + 1].key) continue;
    n[sides[i].triangle][sides[i].corner] = sides[i + 1].triangle;
    n[sides[i + 1].triangle][sides[i + 1].corner] = sides[i].triangle;
  }
  return n;
}

// Components of the triangles with in_set[f] == want; returns the component id per triangle (kNone elsewhere).
std::vector<std::uint32_t> components(const std::vector<std::array<std::uint32_t, 3>>& nb,
                                      const std::vector<char>& in_set, char want, std::vector<std::size_t>& sizes) {
  std::vector<std::uint32_t> id(nb.size(), kNone);
  sizes.clear();
  for (std::uint32_t start = 0; start < nb.size(); ++start) {
    if (in_set[start] != want || id[start] != kNone) continue;
    const auto c = static_cast<std::uint32_t>(sizes.size());
    std::size_t size = 0;
    std::deque<std::uint32_t> queue{start};
    id[start] = c;
    while (!queue.empty()) {
      const std::uint32_t f = queue.front();
      queue.pop_front();
      ++size;
      for (std::uint32_t g : nb[f])
        if (g != kNone && in_set[g] == want && id[g] == kNone) {
          id[g] = c;
          queue.push_back(g);
        }
    }
    sizes.push_back(size);
  }
  return id;
}

}  // namespace

Submesh extract_triangles(const TriangleMesh& mesh, const std::vector<char>& keep) {
  TG_CHECK_ARG(keep.size() == mesh.triangle_count(), "extract_triangles: ", keep.size(), " flags for ",
               mesh.triangle_count(), " triangles");
  Submesh s;
  std::vector<std::uint32_t> renumber(mesh.vertex_count(), kNone);
  for (std::size_t f = 0; f < keep.size(); ++f)
    if (keep[f])
      for (int k = 0; k < 3; ++k) renumber[mesh.triangles[3 * f + k]] = 0;
  for (std::uint32_t v = 0; v < renumber.size(); ++v) {
    if (renumber[v] == kNone) continue;
    renumber[v] = static_cast<std::uint32_t>(s.vertex_map.size());
    s.vertex_map.push_back(v);
    for (int c = 0; c < 3; ++c) s.mesh.vertices.push_back(mesh.vertices[3 * v + c]);
  }
  for (std::size_t f = 0; f < keep.size(); ++f) {
    if (!keep[f]) continue;
    s.triangle_map.push_back(static_cast<std::uint32_t>(f));
    for (int k = 0; k < 3; ++k) s.mesh.triangles.push_back(renumber[mesh.triangles[3 * f + k]]);
  }
  return s;
}

Submesh cut_to_disk(const TriangleMesh& closed, double fraction, std::uint32_t seed_triangle) {
  require_closed_genus0(build_topology(closed), "cut_to_disk");
  TG_CHECK_ARG(fraction > 0.0 && fraction < 1.0, "cut_to_disk: fraction must be in (0, 1), got ", fraction);
  TG_CHECK_ARG(seed_triangle < closed.triangle_count(), "cut_to_disk: seed triangle ", seed_triangle, " out of range");
  const auto nb = triangle_neighbours(closed);
  const std::size_t faces = closed.triangle_count();

  // Breadth-first growth up to the requested area.
  std::vector<char> in(faces, 0);
  const double target = fraction * total_area(closed);
  double area = 0.0;
  std::deque<std::uint32_t> queue{seed_triangle};
  in[seed_triangle] = 1;
  while (!queue.empty() && area < target) {
    const std::uint32_t f = queue.front();
    queue.pop_front();
    area += triangle_area(closed, f);
    for (std::uint32_t g : nb[f])
      if (g != kNone && !in[g]) {
        in[g] = 1;
        queue.push_back(g);
      }
  }

  for (int round = 0; round < 64; ++round) {
    // Holes: every complement component but the largest joins the region.
    std::vector<std::size_t> sizes;
    const auto outside = components(nb, in, 0, sizes);
    TG_CHECK_ARG(!sizes.empty(), "cut_to_disk: the region grew over the whole mesh; use a smaller fraction");
    const auto largest = static_cast<std::uint32_t>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    for (std::size_t f = 0; f < faces; ++f)
      if (!in[f] && outside[f] != largest) in[f] = 1;

    Submesh s = extract_triangles(closed, in);
    const Topology t = build_topology(s.mesh);
    if (t.is_manifold() && t.boundary_loops.size() == 1 && t.euler_characteristic() == 1) return s;
    // Pinches: the region takes every triangle around a vertex where its boundary touches itself.
    std::vector<std::uint32_t> out_count(closed.vertex_count(), 0);
    for (std::size_t f = 0; f < faces; ++f) {
      if (!in[f]) continue;
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t g = nb[f][k];
        if (g == kNone || in[g]) continue;
        ++out_count[closed.triangles[3 * f + k]];  // boundary edge starting at corner k
      }
    }
    std::vector<char> grow = in;
    for (std::size_t f = 0; f < faces; ++f)
      for (int k = 0; k < 3; ++k)
        if (out_count[closed.triangles[3 * f + k]] > 1) grow[f] = 1;
    in = std::move(grow);
  }
  throw InvalidArgument("cut_to_disk: could not grow a disk-topology region from triangle " +
                        std::to_string(seed_triangle));
}

}  // namespace tilegrad::mesh
