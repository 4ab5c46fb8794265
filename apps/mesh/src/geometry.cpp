// Geometry of triangle meshes on the host (geometry.h).
#include "tilegrad/mesh/geometry.h"

#include <algorithm>
#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/core/vec.h"

namespace tilegrad::mesh {
namespace {

Vec3<double> point(const std::vector<double>& xyz, std::uint32_t v) {
  return {{xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2]}};
}
Vec3<double> corner(const TriangleMesh& mesh, std::size_t f, int k) {
  return point(mesh.vertices, mesh.triangles[3 * f + k]);
}

}  // namespace

std::array<double, 3> vertex_position(const TriangleMesh& mesh, std::uint32_t v) {
  return {mesh.vertices[3 * v], mesh.vertices[3 * v + 1], mesh.vertices[3 * v + 2]};
}

double triangle_area(const TriangleMesh& mesh, std::size_t f) {
  const Vec3<double> p0 = corner(mesh, f, 0);
  return 0.5 * norm(cross(corner(mesh, f, 1) - p0, corner(mesh, f, 2) - p0));
}

double total_area(const TriangleMesh& mesh) {
  double a = 0.0;
  for (std::size_t f = 0; f < mesh.triangle_count(); ++f) a += triangle_area(mesh, f);
  return a;
}

double bounding_diagonal(const TriangleMesh& mesh) {
  if (mesh.vertex_count() == 0) return 0.0;
  Vec3<double> lo = point(mesh.vertices, 0), hi = lo;
  for (std::uint32_t v = 1; v < mesh.vertex_count(); ++v) {
    const Vec3<double> p = point(mesh.vertices, v);
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], p[c]);
      hi[c] = std::max(hi[c], p[c]);
    }
  }
  return norm(hi - lo);
}

std::vector<double> vertex_normals(const TriangleMesh& mesh) {
  std::vector<double> n(mesh.vertices.size(), 0.0);
  for (std::size_t f = 0; f < mesh.triangle_count(); ++f) {
    const Vec3<double> p0 = corner(mesh, f, 0);
    const Vec3<double> face = cross(corner(mesh, f, 1) - p0, corner(mesh, f, 2) - p0);  // |face| = 2 area
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) n[3 * mesh.triangles[3 * f + k] + c] += face[c];
  }
  for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
    const double len = std::sqrt(n[3 * v] * n[3 * v] + n[3 * v + 1] * n[3 * v + 1] + n[3 * v + 2] * n[3 * v + 2]);
    for (int c = 0; c < 3; ++c) n[3 * v + c] = len > 0 ? n[3 * v + c] / len : 0.0;
  }
  return n;
}

std::vector<double> corner_cotangents(const TriangleMesh& mesh) {
  std::vector<double> cot(mesh.triangles.size());
  for (std::size_t f = 0; f < mesh.triangle_count(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const Vec3<double> p = corner(mesh, f, k);
      const Vec3<double> a = corner(mesh, f, (k + 1) % 3) - p, b = corner(mesh, f, (k + 2) % 3) - p;
      cot[3 * f + k] = dot(a, b) / norm(cross(a, b));
    }
  }
  return cot;
}

template <class T>
RestTriangle<T> rest_triangle(const TriangleMesh& mesh, std::size_t f) {
  const Vec3<double> p0 = corner(mesh, f, 0);
  const Vec3<double> e1 = corner(mesh, f, 1) - p0, e2 = corner(mesh, f, 2) - p0;
  const double l1 = norm(e1), twice_area = norm(cross(e1, e2));
  TG_CHECK_ARG(l1 > 0 && twice_area > 1e-300, "mesh: triangle ", f, " is degenerate (zero area)");
  // Edge matrix in the triangle's frame (x along e1): columns (l1, 0) and (e1.e2 / l1, 2A / l1).
  const double a = l1, b = dot(e1, e2) / l1, d = twice_area / l1;
  RestTriangle<T> r;
  const double det = a * d;  // the lower-left entry is 0
  r.rest_inverse[0] = static_cast<T>(d / det);
  r.rest_inverse[1] = static_cast<T>(-b / det);
  r.rest_inverse[2] = static_cast<T>(0.0);
  r.rest_inverse[3] = static_cast<T>(a / det);
  r.area = static_cast<T>(0.5 * twice_area);
  return r;
}

template RestTriangle<float> rest_triangle<float>(const TriangleMesh&, std::size_t);
template RestTriangle<double> rest_triangle<double>(const TriangleMesh&, std::size_t);

std::size_t count_inverted_planar(const std::vector<double>& uv, const std::vector<std::uint32_t>& triangles) {
  std::size_t n = 0;
  for (std::size_t f = 0; f < triangles.size() / 3; ++f) {
    const std::uint32_t* t = &triangles[3 * f];
    const double ax = uv[2 * t[1]] - uv[2 * t[0]], ay = uv[2 * t[1] + 1] - uv[2 * t[0] + 1];
    const double bx = uv[2 * t[2]] - uv[2 * t[0]], by = uv[2 * t[2] + 1] - uv[2 * t[0] + 1];
    if (!(ax * by - ay * bx > 0.0)) ++n;
  }
  return n;
}

std::size_t count_inverted_sphere(const std::vector<double>& points, const std::vector<std::uint32_t>& triangles) {
  std::size_t n = 0;
  for (std::size_t f = 0; f < triangles.size() / 3; ++f) {
    const Vec3<double> q0 = point(points, triangles[3 * f]), q1 = point(points, triangles[3 * f + 1]),
                       q2 = point(points, triangles[3 * f + 2]);
    if (!(dot(cross(q1 - q0, q2 - q0), q0) > 0.0)) ++n;
  }
  return n;
}

}  // namespace tilegrad::mesh
