// Mesh smoothing (smoothing.h).
#include "tilegrad/mesh/smoothing.h"

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"

namespace tilegrad::mesh {

DirichletWeights parse_dirichlet_weights(const std::string& name) {
  if (name == "uniform") return DirichletWeights::Uniform;
  if (name == "cotangent" || name == "cot") return DirichletWeights::Cotangent;
  throw InvalidArgument("unknown Dirichlet weights '" + name + "' (expected uniform or cotangent)");
}

SmoothingResult smooth_mesh(const TriangleMesh& input, const SmoothingOptions& options) {
  const Topology topology = build_topology(input);
  require_manifold(topology, "smooth");
  TG_CHECK_ARG(options.anchor_weight >= 0.0, "smooth: the anchor weight must be >= 0, got ", options.anchor_weight);
  std::vector<std::uint32_t> fixed;
  if (options.fix_boundary)
    for (const auto& loop : topology.boundary_loops) fixed.insert(fixed.end(), loop.begin(), loop.end());
  TG_CHECK_ARG(!fixed.empty() || options.anchor_weight > 0.0,
               "smooth: nothing anchors the mesh (", topology.is_closed() ? "it is closed" : "the boundary is free",
               " and the anchor weight is 0), so the energy has no unique minimum");
  const auto unused = unreferenced_vertices(input);
  TG_CHECK_ARG(unused.empty() || options.anchor_weight > 0.0, "smooth: vertex ", unused.empty() ? 0 : unused[0],
               " is in no triangle; it needs soft anchors (anchor weight > 0)");

  ElementProblem<double, 3> problem(input.vertex_count(), options.solve.device);
  problem.options() = options.solve.assembly;
  if (options.weights == DirichletWeights::Uniform) {
    add_uniform_dirichlet(problem, input);
  } else {
    add_cotangent_dirichlet(problem, input);
  }
  if (options.anchor_weight > 0.0) add_soft_anchors(problem, input, {}, options.anchor_weight);
  if (!fixed.empty()) problem.fix_vertices(fixed);

  auto x = Buffer<double>::from(input.vertices, options.solve.device);
  SmoothingResult result;
  result.solve = run_solver(problem, x.view(), options.solve);
  result.mesh.triangles = input.triangles;
  result.mesh.vertices = x.to_vector();
  result.fixed_vertices = fixed.size();
  return result;
}

}  // namespace tilegrad::mesh
