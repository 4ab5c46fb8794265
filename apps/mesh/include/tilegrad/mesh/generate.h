// Generated meshes for tests, demos and benchmarks: a flat grid (cloth, disk-topology patch), a wavy developable
// patch (exactly flattenable), an icosphere (closed genus 0), and noise along the normals.
#pragma once
#include <cstdint>

#include "tilegrad/io/mesh.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

// (nx + 1) x (ny + 1) vertices on [0, width] x [0, height] at z = 0, vertex (i, j) at index j (nx + 1) + i;
// triangles counter-clockwise seen from +z, diagonals alternating so that the grid has no preferred direction.
TriangleMesh grid(std::uint32_t nx, std::uint32_t ny, double width = 1.0, double height = 1.0);

// The grid on [0, 1]^2 lifted to (x, y, amplitude sin(2 pi waves x)): a generalised cylinder whose quads are
// planar rectangles, so the triangulation develops onto the plane without distortion.
TriangleMesh developable_patch(std::uint32_t nx, std::uint32_t ny, double amplitude = 0.15, double waves = 1.0);

// Unit sphere from a subdivided icosahedron: 10 4^s + 2 vertices, counter-clockwise seen from outside.
TriangleMesh icosphere(int subdivisions);

// Moves every vertex along its normal by a uniform random amount in [-amplitude, amplitude].
void add_normal_noise(TriangleMesh& mesh, double amplitude, std::uint64_t seed);

}  // namespace tilegrad::mesh
