// Parameterization (parameterization.h): cut when closed, Tutte embedding scaled to the surface area, Newton on
// the symmetric Dirichlet energy.
#include "tilegrad/mesh/parameterization.h"

#include <cmath>
#include <numeric>

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/cut.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"
#include "tilegrad/mesh/tutte.h"

namespace tilegrad::mesh {
namespace {

double planar_area(const std::vector<double>& uv, const std::vector<std::uint32_t>& triangles) {
  double a = 0.0;
  for (std::size_t f = 0; f < triangles.size() / 3; ++f) {
    const std::uint32_t* t = &triangles[3 * f];
    a += 0.5 * ((uv[2 * t[1]] - uv[2 * t[0]]) * (uv[2 * t[2] + 1] - uv[2 * t[0] + 1]) -
                (uv[2 * t[1] + 1] - uv[2 * t[0] + 1]) * (uv[2 * t[2]] - uv[2 * t[0]]));
  }
  return a;
}

}  // namespace

ParameterizationResult parameterize(const TriangleMesh& mesh, const ParameterizationOptions& options) {
  ParameterizationResult r;
  Topology topology = build_topology(mesh);
  if (topology.is_closed()) {
    Submesh cut = cut_to_disk(mesh, options.cut_fraction);
    r.disk = std::move(cut.mesh);
    r.vertex_map = std::move(cut.vertex_map);
    topology = build_topology(r.disk);
  } else {
    r.disk = mesh;
    r.vertex_map.resize(mesh.vertex_count());
    std::iota(r.vertex_map.begin(), r.vertex_map.end(), 0u);
  }
  require_disk(topology, "parameterize");
  const auto unused = unreferenced_vertices(r.disk);
  TG_CHECK_ARG(unused.empty(), "parameterize: vertex ", unused.empty() ? 0 : unused[0], " is in no triangle");

  const Device device = options.solve.device;
  r.uv = tutte_embedding(r.disk, topology.boundary_loops[0], device);
  // The symmetric Dirichlet energy measures distortion against the 3D triangles: match the total area first.
  const double area = total_area(r.disk);
  const double scale = std::sqrt(area / planar_area(r.uv, r.disk.triangles));
  for (double& c : r.uv) c *= scale;
  r.lower_bound = 4.0 * area;

  ElementProblem<double, 2> problem(r.disk.vertex_count(), device);
  problem.options() = options.solve.assembly;
  add_symmetric_dirichlet(problem, r.disk);
  auto x = Buffer<double>::from(r.uv, device);
  r.initial_energy = problem.value(x.cview());
  TG_REQUIRE(std::isfinite(r.initial_energy), InternalError,
             "parameterize: the Tutte embedding has inverted triangles (non-convex boundary?)");
  r.solve = run_solver(problem, x.view(), options.solve);
  r.uv = x.to_vector();
  r.energy = r.solve.energy;
  r.inverted = count_inverted_planar(r.uv, r.disk.triangles);
  return r;
}

TriangleMesh uv_mesh(const ParameterizationResult& result) {
  TriangleMesh m;
  m.triangles = result.disk.triangles;
  m.vertices.resize(3 * result.disk.vertex_count());
  for (std::size_t v = 0; v < result.disk.vertex_count(); ++v) {
    m.vertices[3 * v] = result.uv[2 * v];
    m.vertices[3 * v + 1] = result.uv[2 * v + 1];
    m.vertices[3 * v + 2] = 0.0;
  }
  return m;
}

}  // namespace tilegrad::mesh
