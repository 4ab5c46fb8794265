// Connectivity of triangle meshes: unique edges, edge diamonds (the four vertices around an interior edge),
// boundary loops, Euler characteristic, and the checks applications run before they start (manifold, closed,
// disk topology), which throw InvalidArgument naming the application and the problem.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/io/mesh.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

struct Topology {
  std::vector<std::uint32_t> edges;     // [E, 2], a < b, sorted
  std::vector<std::uint32_t> diamonds;  // [I, 4]: (v0, v1, v2, v3) for interior edges, see DiscreteShellBending
  std::vector<std::vector<std::uint32_t>> boundary_loops;  // each loop in boundary order (mesh on its left)
  std::size_t non_manifold_edges = 0;   // edges with more than two triangles
  std::size_t inconsistent_edges = 0;   // interior edges whose triangles traverse them the same way
  std::size_t non_manifold_vertices = 0;  // boundary vertices where the boundary touches itself
  std::size_t vertex_count = 0, triangle_count = 0;

  std::size_t edge_count() const { return edges.size() / 2; }
  bool is_manifold() const { return non_manifold_edges == 0 && inconsistent_edges == 0 && non_manifold_vertices == 0; }
  bool is_closed() const { return boundary_loops.empty(); }
  long long euler_characteristic() const {
    return static_cast<long long>(vertex_count) - static_cast<long long>(edge_count()) +
           static_cast<long long>(triangle_count);
  }
};

// Throws InvalidArgument on indices out of range or repeated indices inside a triangle.
Topology build_topology(const TriangleMesh& mesh);

// Requirements of applications; `who` names the caller in the message.
void require_manifold(const Topology& t, const std::string& who);
void require_closed_genus0(const Topology& t, const std::string& who);
void require_disk(const Topology& t, const std::string& who);

// Vertices used by no triangle (an application on such a mesh would leave them undetermined).
std::vector<std::uint32_t> unreferenced_vertices(const TriangleMesh& mesh);

}  // namespace tilegrad::mesh
