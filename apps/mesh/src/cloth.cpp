// Cloth simulation (cloth.h): one element problem reused for every step; the inertia term's data (predicted
// positions) changes per step, the layout and the Hessian pattern are built once.
#include "tilegrad/mesh/cloth.h"

#include <algorithm>
#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/generate.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"

namespace tilegrad::mesh {
namespace {

void check_options(const ClothOptions& o) {
  TG_CHECK_ARG(o.resolution >= 1, "cloth: resolution must be >= 1");
  TG_CHECK_ARG(o.size > 0 && o.density > 0, "cloth: size and density must be positive");
  TG_CHECK_ARG(o.stretch_stiffness >= 0 && o.bend_stiffness >= 0, "cloth: stiffnesses must be >= 0");
  TG_CHECK_ARG(o.time_step > 0 && o.substeps >= 1 && o.frames >= 0, "cloth: time step > 0, substeps >= 1, frames >= 0");
}

std::vector<double> lumped_masses(const TriangleMesh& mesh, double density) {
  std::vector<double> m(mesh.vertex_count(), 0.0);
  for (std::size_t f = 0; f < mesh.triangle_count(); ++f) {
    const double share = density * triangle_area(mesh, f) / 3.0;
    for (int k = 0; k < 3; ++k) m[mesh.triangles[3 * f + k]] += share;
  }
  return m;
}

}  // namespace

ClothResult simulate_cloth(const ClothOptions& options,
                           const std::function<void(const ClothFrame&, const TriangleMesh&)>& on_frame) {
  check_options(options);
  const std::uint32_t n = options.resolution;
  ClothResult result;
  result.mesh = grid(n, n, options.size, options.size);
  const TriangleMesh rest = result.mesh;
  const Topology topology = build_topology(rest);
  const std::size_t vertices = rest.vertex_count();
  const std::vector<double> masses = lumped_masses(rest, options.density);
  const double h = options.time_step / options.substeps;
  const Device device = options.solve.device;

  ElementProblem<double, 3> problem(vertices, device);
  problem.options() = options.solve.assembly;
  const int springs = add_springs(problem, rest, topology.edges, options.stretch_stiffness);
  const int bending = add_bending(problem, rest, topology.diamonds, options.bend_stiffness);
  std::vector<VertexMass<double>> inertia(vertices);
  for (std::size_t v = 0; v < vertices; ++v) inertia[v].mass = masses[v];
  const int inertia_term = add_inertia_gravity(problem, inertia, h, options.gravity);
  problem.fix_vertices({n * (n + 1), n * (n + 1) + n});  // the two corners at y = size

  std::vector<double> x = rest.vertices, velocity(3 * vertices, 0.0);
  auto d_x = Buffer<double>::from(x, device);
  auto summarise = [&](ClothFrame& frame) {
    frame.kinetic_energy = frame.gravity_energy = 0.0;
    for (std::size_t v = 0; v < vertices; ++v) {
      const double* vel = &velocity[3 * v];
      frame.kinetic_energy += 0.5 * masses[v] * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]);
      frame.gravity_energy += masses[v] * options.gravity * x[3 * v + 2];
    }
    problem.value(d_x.cview());
    frame.elastic_energy = problem.term_energies()[springs] + problem.term_energies()[bending];
    result.mesh.vertices = x;
    result.frames.push_back(frame);
    if (on_frame) on_frame(frame, result.mesh);
  };
  ClothFrame start;
  summarise(start);

  for (int f = 1; f <= options.frames; ++f) {
    ClothFrame frame;
    frame.frame = f;
    frame.time = f * options.time_step;
    for (int s = 0; s < options.substeps; ++s) {
      // Predicted positions x_n + h v_n: the inertia target and the Newton start.
      std::vector<double> predicted(3 * vertices);
      for (std::size_t i = 0; i < predicted.size(); ++i) predicted[i] = x[i] + h * velocity[i];
      for (std::size_t v = 0; v < vertices; ++v)
        for (int c = 0; c < 3; ++c) inertia[v].predicted[c] = predicted[3 * v + c];
      problem.set_term_data(inertia_term, inertia);
      d_x = Buffer<double>::from(predicted, device);
      const SolveResult solve = run_solver(problem, d_x.view(), options.solve);
      frame.newton_iterations += solve.iterations;
      frame.solves_converged = frame.solves_converged && solve.converged;
      if (!solve.log.empty())
        frame.worst_potential_change = std::max(frame.worst_potential_change, solve.energy - solve.log.front().energy);
      const std::vector<double> next = d_x.to_vector();
      for (std::size_t i = 0; i < next.size(); ++i) {
        velocity[i] = (next[i] - x[i]) / h;
        x[i] = next[i];
      }
    }
    summarise(frame);
  }
  return result;
}

}  // namespace tilegrad::mesh
