// Tutte embedding (tutte.h) as a quadratic element problem: one Newton step with a tight PCG solve.
#include "tilegrad/mesh/tutte.h"

#include <cmath>

#include "tilegrad/ad/element_problem.h"
#include "tilegrad/ad/solvers.h"
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/dirichlet_energies.h"
#include "tilegrad/mesh/topology.h"

namespace tilegrad::mesh {
namespace {

// Boundary by arc length: keeps long boundary edges long in the embedding.
void place_on_circle(const TriangleMesh& mesh, const std::vector<std::uint32_t>& boundary, std::vector<double>& uv) {
  std::vector<double> arc(boundary.size() + 1, 0.0);
  for (std::size_t i = 0; i < boundary.size(); ++i) {
    const std::uint32_t a = boundary[i], b = boundary[(i + 1) % boundary.size()];
    TG_CHECK_ARG(a < mesh.vertex_count(), "tutte_embedding: boundary vertex ", a, " out of range");
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c) d2 += std::pow(mesh.vertices[3 * a + c] - mesh.vertices[3 * b + c], 2);
    arc[i + 1] = arc[i] + std::sqrt(d2);
  }
  TG_CHECK_ARG(arc.back() > 0.0, "tutte_embedding: the boundary has zero length");
  for (std::size_t i = 0; i < boundary.size(); ++i) {
    const double angle = 2.0 * 3.14159265358979323846 * arc[i] / arc.back();
    uv[2 * boundary[i]] = std::cos(angle);
    uv[2 * boundary[i] + 1] = std::sin(angle);
  }
}

}  // namespace

std::vector<double> tutte_embedding(const TriangleMesh& mesh, const std::vector<std::uint32_t>& boundary,
                                    Device device, const std::vector<double>* boundary_uv) {
  TG_CHECK_ARG(boundary.size() >= 3, "tutte_embedding: the boundary loop needs at least 3 vertices, got ",
               boundary.size());
  const std::size_t n = mesh.vertex_count();
  std::vector<double> uv(2 * n, 0.0);
  if (boundary_uv) {
    TG_CHECK_ARG(boundary_uv->size() == uv.size(), "tutte_embedding: boundary positions for ", boundary_uv->size() / 2,
                 " vertices, the mesh has ", n);
    for (std::uint32_t v : boundary) {
      TG_CHECK_ARG(v < n, "tutte_embedding: boundary vertex ", v, " out of range");
      uv[2 * v] = (*boundary_uv)[2 * v];
      uv[2 * v + 1] = (*boundary_uv)[2 * v + 1];
    }
  } else {
    place_on_circle(mesh, boundary, uv);
  }

  ElementProblem<double, 2> problem(n, device);
  problem.add_term<2>("uniform dirichlet", build_topology(mesh).edges, EdgeDirichlet<double, 2>{});
  problem.fix_vertices(boundary);
  auto x = Buffer<double>::from(uv, device);
  NewtonOptions options;
  options.adaptive_tolerance = false;
  // Far below what the embedding needs, and reachable in double on meshes of 10^5 vertices.
  options.pcg.relative_tolerance = 1e-11;
  options.pcg.max_iterations = 50000;
  options.stop.max_iterations = 3;
  options.stop.gradient_tolerance = 1e-12;
  const SolveResult r = newton(problem, x.view(), options);
  TG_REQUIRE(std::isfinite(r.energy), InternalError, "tutte_embedding: the solve diverged (", r.reason, ")");
  return x.to_vector();
}

}  // namespace tilegrad::mesh
