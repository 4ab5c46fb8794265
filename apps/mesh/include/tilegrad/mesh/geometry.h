// Geometry of triangle meshes on the host: areas, normals, corner cotangents, rest triangles of distortion
// energies, and counts of inverted triangles in the plane and on the sphere.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/distortion_energies.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

std::array<double, 3> vertex_position(const TriangleMesh& mesh, std::uint32_t v);
double triangle_area(const TriangleMesh& mesh, std::size_t f);
double total_area(const TriangleMesh& mesh);
// Length of the bounding box diagonal.
double bounding_diagonal(const TriangleMesh& mesh);
// Area-weighted vertex normals, unit length ([V, 3]).
std::vector<double> vertex_normals(const TriangleMesh& mesh);
// cot of the angle at each corner ([F, 3]); large magnitudes for nearly degenerate triangles.
std::vector<double> corner_cotangents(const TriangleMesh& mesh);

// The triangle (p0, p1, p2) laid out in its plane: area and the inverse edge matrix (see RestTriangle). Throws
// InvalidArgument for a degenerate triangle (zero area).
template <class T>
RestTriangle<T> rest_triangle(const TriangleMesh& mesh, std::size_t f);

// Triangles whose image has non-positive signed area: uv [V, 2] in the plane, points [V, 3] on the unit
// sphere (det(q0, q1, q2) <= 0).
std::size_t count_inverted_planar(const std::vector<double>& uv, const std::vector<std::uint32_t>& triangles);
std::size_t count_inverted_sphere(const std::vector<double>& points, const std::vector<std::uint32_t>& triangles);

}  // namespace tilegrad::mesh
