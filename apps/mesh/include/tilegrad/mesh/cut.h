// Cutting a closed genus-0 mesh into a disk-topology patch (for parameterization), and extracting submeshes.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/io/mesh.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

struct Submesh {
  TriangleMesh mesh;
  std::vector<std::uint32_t> vertex_map;    // submesh vertex -> input vertex
  std::vector<std::uint32_t> triangle_map;  // submesh triangle -> input triangle
};

// The triangles with keep[f] != 0 and the vertices they use, renumbered in input order.
Submesh extract_triangles(const TriangleMesh& mesh, const std::vector<char>& keep);

// Grows a region of triangles breadth-first from `seed_triangle` until it covers `fraction` of the area, then
// fills its holes (all complement components but the largest) and widens it around vertices where its boundary
// touches itself, until it is a topological disk. Throws InvalidArgument when the input is not closed genus 0.
Submesh cut_to_disk(const TriangleMesh& closed, double fraction = 0.5, std::uint32_t seed_triangle = 0);

}  // namespace tilegrad::mesh
