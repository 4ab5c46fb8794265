// Connectivity of triangle meshes (topology.h): half-edges sorted by their undirected edge, which gives the
// unique edges, the diamonds, the manifold checks and the boundary in one pass.
#include "tilegrad/mesh/topology.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "tilegrad/core/error.h"

namespace tilegrad::mesh {
namespace {

struct HalfEdge {
  std::uint32_t from, to, triangle, opposite;
  std::uint64_t key() const {
    const std::uint32_t a = std::min(from, to), b = std::max(from, to);
    return (static_cast<std::uint64_t>(a) << 32) | b;
  }
};

}  // namespace

Topology build_topology(const TriangleMesh& mesh) {
  TG_CHECK_ARG(mesh.vertices.size() % 3 == 0, "mesh: ", mesh.vertices.size(),
               " vertex coordinates is not a multiple of 3");
  TG_CHECK_ARG(mesh.triangles.size() % 3 == 0, "mesh: ", mesh.triangles.size(),
               " triangle indices is not a multiple of 3");
  Topology t;
  t.vertex_count = mesh.vertex_count();
  t.triangle_count = mesh.triangle_count();
  std::vector<HalfEdge> half(3 * t.triangle_count);
  for (std::size_t f = 0; f < t.triangle_count; ++f) {
    const std::uint32_t* v = &mesh.triangles[3 * f];
    for (int k = 0; k < 3; ++k) {
      TG_CHECK_ARG(v[k] < t.vertex_count, "mesh: triangle ", f, " has vertex index ", v[k], " >= vertex count ",
                   t.vertex_count);
      TG_CHECK_ARG(v[k] != v[(k + 1) % 3], "mesh: triangle ", f, " repeats vertex ", v[k]);
      half[3 * f + k] = {v[k], v[(k + 1) % 3], static_cast<std::uint32_t>(f), v[(k + 2) % 3]};
    }
  }
  std::sort(half.begin(), half.end(), [](const HalfEdge& a, const HalfEdge& b) {
    return std::make_tuple(a.key(), a.from, a.triangle) < std::make_tuple(b.key(), b.from, b.triangle);
  });

  // Boundary half-edges, indexed by their start vertex, to walk the loops.
  std::vector<std::uint32_t> boundary_next(t.vertex_count, UINT32_MAX);
  std::vector<std::uint32_t> boundary_out(t.vertex_count, 0);
  for (std::size_t i = 0; i < half.size();) {
    std::size_t j = i;
    while (j < half.size() && half[j].key() == half[i].key()) ++j;
    const std::size_t n = j - i;
    t.edges.push_back(std::min(half[i].from, half[i].to));
    t.edges.push_back(std::max(half[i].from, half[i].to));
    if (n > 2) {
      ++t.non_manifold_edges;
    } else if (n == 2) {
      const HalfEdge &a = half[i], &b = half[i + 1];
      if (a.from == b.from) {
        ++t.inconsistent_edges;
      } else {
        // a runs v0 -> v1 in its triangle, b the other way: (v0, v1, opposite in a, opposite in b).
        t.diamonds.insert(t.diamonds.end(), {a.from, a.to, a.opposite, b.opposite});
      }
    } else {
      ++boundary_out[half[i].from];
      boundary_next[half[i].from] = half[i].to;
    }
    i = j;
  }

  std::vector<char> visited(t.vertex_count, 0);
  for (std::uint32_t v = 0; v < t.vertex_count; ++v) {
    if (boundary_out[v] > 1) ++t.non_manifold_vertices;
  }
  if (t.non_manifold_vertices == 0) {
    for (std::uint32_t start = 0; start < t.vertex_count; ++start) {
      if (boundary_next[start] == UINT32_MAX || visited[start]) continue;
      std::vector<std::uint32_t> loop;
      for (std::uint32_t v = start; !visited[v]; v = boundary_next[v]) {
        visited[v] = 1;
        loop.push_back(v);
        if (boundary_next[v] == UINT32_MAX) {  // an open chain: the boundary is not a set of loops
          ++t.non_manifold_vertices;
          break;
        }
      }
      t.boundary_loops.push_back(std::move(loop));
    }
  }
  return t;
}

void require_manifold(const Topology& t, const std::string& who) {
  TG_CHECK_ARG(t.non_manifold_edges == 0, who, ": the mesh has ", t.non_manifold_edges,
               " non-manifold edges (shared by more than two triangles)");
  TG_CHECK_ARG(t.inconsistent_edges == 0, who, ": the mesh has ", t.inconsistent_edges,
               " edges whose two triangles are oriented inconsistently");
  TG_CHECK_ARG(t.non_manifold_vertices == 0, who, ": the mesh has ", t.non_manifold_vertices,
               " non-manifold boundary vertices");
}

void require_closed_genus0(const Topology& t, const std::string& who) {
  require_manifold(t, who);
  TG_CHECK_ARG(t.is_closed(), who, ": needs a closed mesh, this one has ", t.boundary_loops.size(), " boundary loops");
  TG_CHECK_ARG(t.euler_characteristic() == 2, who, ": needs a closed genus-0 mesh (Euler characteristic 2), got ",
               t.euler_characteristic(), " (several components or handles)");
}

void require_disk(const Topology& t, const std::string& who) {
  require_manifold(t, who);
  TG_CHECK_ARG(t.boundary_loops.size() == 1, who, ": needs a disk-topology mesh (one boundary loop), this one has ",
               t.boundary_loops.size(), t.boundary_loops.empty() ? " (closed: cut it first, see --cut)" : "");
  TG_CHECK_ARG(t.euler_characteristic() == 1, who, ": needs a disk-topology mesh (Euler characteristic 1), got ",
               t.euler_characteristic());
}

std::vector<std::uint32_t> unreferenced_vertices(const TriangleMesh& mesh) {
  std::vector<char> used(mesh.vertex_count(), 0);
  for (std::uint32_t v : mesh.triangles)
    if (v < used.size()) used[v] = 1;
  std::vector<std::uint32_t> unused;
  for (std::size_t v = 0; v < used.size(); ++v)
    if (!used[v]) unused.push_back(static_cast<std::uint32_t>(v));
  return unused;
}

}  // namespace tilegrad::mesh
