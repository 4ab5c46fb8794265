// Generated meshes (generate.h).
#include "tilegrad/mesh/generate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/geometry.h"

namespace tilegrad::mesh {

constexpr double kPi = 3.14159265358979323846;

TriangleMesh grid(std::uint32_t nx, std::uint32_t ny, double width, double height) {
  TG_CHECK_ARG(nx >= 1 && ny >= 1, "grid: needs at least one cell in each direction, got ", nx, " x ", ny);
  TG_CHECK_ARG(static_cast<std::uint64_t>(nx + 1) * (ny + 1) < (std::uint64_t(1) << 32), "grid: too many vertices");
  TriangleMesh m;
  m.vertices.reserve(3 * std::size_t(nx + 1) * (ny + 1));
  for (std::uint32_t j = 0; j <= ny; ++j)
    for (std::uint32_t i = 0; i <= nx; ++i) m.vertices.insert(m.vertices.end(), {width * i / nx, height * j / ny, 0.0});
  m.triangles.reserve(6 * std::size_t(nx) * ny);
  for (std::uint32_t j = 0; j < ny; ++j) {
    for (std::uint32_t i = 0; i < nx; ++i) {
      const std::uint32_t a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1;
      if ((i + j) % 2 == 0) {
        m.triangles.insert(m.triangles.end(), {a, b, d, a, d, c});
      } else {
        m.triangles.insert(m.triangles.end(), {a, b, c, b, d, c});
      }
    }
  }
  return m;
}

TriangleMesh developable_patch(std::uint32_t nx, std::uint32_t ny, double amplitude, double waves) {
  TriangleMesh m = grid(nx, ny);
  for (std::size_t v = 0; v < m.vertex_count(); ++v)
    m.vertices[3 * v + 2] = amplitude * std::sin(2.0 * kPi * waves * m.vertices[3 * v]);
  return m;
}

TriangleMesh icosphere(int subdivisions) {
  TG_CHECK_ARG(subdivisions >= 0 && subdivisions <= 9, "icosphere: subdivisions must be in 0..9, got ", subdivisions);
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  TriangleMesh m;
  m.vertices = {-1, t, 0, 1, t, 0, -1, -t, 0, 1, -t, 0, 0, -1, t, 0, 1, t,
                0, -1, -t, 0, 1, -t, t, 0, -1, t, 0, 1, -t, 0, -1, -t, 0, 1};
  m.triangles = {0, 11, 5, 0, 5,  1,  0, 1, 7, 0, 7,  10, 0, 10, 11, 1, 5, 9, 5, 11, 4,  11, 10, 2,  10, 7, 6, 7, 1, 8,
                 3, 9,  4, 3, 4,  2,  3, 2, 6, 3, 6,  8,  3, 8,  9,  4, 9, 5, 2, 4,  11, 6,  2,  10, 8,  6, 7, 9, 8, 1};
  auto normalise = [&](std::size_t v) {
    double* p = &m.vertices[3 * v];
    const double len = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int c = 0; c < 3; ++c) p[c] /= len;
  };
  for (std::size_t v = 0; v < m.vertex_count(); ++v) normalise(v);
  for (int s = 0; s < subdivisions; ++s) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> midpoints;
    auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      const auto it = midpoints.find(key);
      if (it != midpoints.end()) return it->second;
      const auto v = static_cast<std::uint32_t>(m.vertex_count());
      for (int c = 0; c < 3; ++c) m.vertices.push_back(0.5 * (m.vertices[3 * a + c] + m.vertices[3 * b + c]));
      normalise(v);
      midpoints.emplace(key, v);
      return v;
    };
    std::vector<std::uint32_t> next;
    next.reserve(4 * m.triangles.size());
    for (std::size_t f = 0; f < m.triangle_count(); ++f) {
      const std::uint32_t a = m.triangles[3 * f], b = m.triangles[3 * f + 1], c = m.triangles[3 * f + 2];
      const std::uint32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.insert(next.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
    }
    m.triangles = std::move(next);
  }
  return m;
}

void add_normal_noise(TriangleMesh& mesh, double amplitude, std::uint64_t seed) {
  const std::vector<double> n = vertex_normals(mesh);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(-amplitude, amplitude);
  for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
    const double d = offset(rng);
    for (int c = 0; c < 3; ++c) mesh.vertices[3 * v + c] += d * n[3 * v + c];
  }
}

}  // namespace tilegrad::mesh
