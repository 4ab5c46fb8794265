// Spherical embedding (spherical.h): the tangent-space objective with its retraction, the stereographic Tutte
// start, untangling rounds and the barrier-protected distortion solve.
#include "tilegrad/mesh/spherical.h"

#include <algorithm>
#include <cmath>

#include "tilegrad/ad/vector_ops.h"
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/cut.h"
#include "tilegrad/mesh/element_data.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"
#include "tilegrad/mesh/tutte.h"

namespace tilegrad::mesh {
namespace {

constexpr double kPi = 3.14159265358979323846;

// An element problem over tangent coordinates u (2 per vertex) at base points on the sphere; accepting a step
// moves the base points to normalize(p + T u) and resets u to 0.
class SphereObjective final : public Objective<double> {
 public:
  enum class Energy { Distortion, Untangle };

  SphereObjective(const TriangleMesh& mesh, std::vector<double> points, std::vector<RestTriangle<double>> rest,
                  Energy energy, double epsilon, const SolveSettings& settings)
      : m_mesh(mesh),
        m_points(std::move(points)),
        m_rest(std::move(rest)),
        m_problem(mesh.vertex_count(), settings.device) {
    m_problem.options() = settings.assembly;
    const auto data = sphere_triangles(m_mesh, m_points, m_rest);
    m_term = energy == Energy::Distortion ? add_spherical_symmetric_dirichlet(m_problem, m_mesh, data)
                                          : add_sphere_untangling(m_problem, m_mesh, data, epsilon);
  }

  std::size_t size() const override { return m_problem.size(); }
  Device device() const override { return m_problem.device(); }
  double value(View<const double> u) override { return m_problem.value(u); }
  double gradient(View<const double> u, View<double> g) override { return m_problem.gradient(u, g); }
  const CsrMatrix<double>& hessian(View<const double> u) override { return m_problem.hessian(u); }
  bool projects_hessian() const override { return m_problem.projects_hessian(); }
  const CsrMatrix<double>& exact_hessian(View<const double> u) override { return m_problem.exact_hessian(u); }
  void hessian_diagonal(View<const double> u, View<double> d) override { m_problem.hessian_diagonal(u, d); }
  void hvp(View<const double> u, View<const double> v, View<double> out) override { m_problem.hvp(u, v, out); }

  bool accept(View<double> u) override {
    const std::vector<double> step = to_vector(View<const double>(u));
    for (std::size_t v = 0; v < m_mesh.vertex_count(); ++v) {
      double* p = &m_points[3 * v];
      double t0[3], t1[3];
      sphere_tangents(p, t0, t1);
      double len2 = 0.0;
      for (int c = 0; c < 3; ++c) {
        p[c] += step[2 * v] * t0[c] + step[2 * v + 1] * t1[c];
        len2 += p[c] * p[c];
      }
      for (int c = 0; c < 3; ++c) p[c] /= std::sqrt(len2);
    }
    m_problem.set_term_data(m_term, sphere_triangles(m_mesh, m_points, m_rest));
    blas::fill(u, 0.0);
    return true;
  }

  const std::vector<double>& points() const { return m_points; }

 private:
  const TriangleMesh& m_mesh;
  std::vector<double> m_points;
  std::vector<RestTriangle<double>> m_rest;
  ElementProblem<double, 2> m_problem;
  int m_term = 0;
};

// Inverse stereographic projection of a unit-disk layout onto the southern hemisphere (z = -1 at the centre, the
// unit circle on the equator); `north` mirrors it onto the northern one.
void lift_disk(const std::vector<double>& uv, const std::vector<std::uint32_t>& vertex_map, bool north,
               std::vector<double>& points) {
  for (std::size_t v = 0; v < vertex_map.size(); ++v) {
    const double x = uv[2 * v], y = uv[2 * v + 1], r2 = x * x + y * y;
    double* p = &points[3 * vertex_map[v]];
    p[0] = 2.0 * x / (r2 + 1.0);
    p[1] = 2.0 * y / (r2 + 1.0);
    p[2] = (north ? -1.0 : 1.0) * (r2 - 1.0) / (r2 + 1.0);
  }
}

SolveResult solve_on_sphere(SphereObjective& objective, const SolveSettings& settings, int max_iterations) {
  SolveSettings s = settings;
  s.solver = SolverKind::Newton;
  s.stop.max_iterations = max_iterations;
  auto u = Buffer<double>::zeros(objective.size(), objective.device());
  return run_solver<double>(objective, u.view(), s);
}

}  // namespace

std::vector<double> hemisphere_tutte(const TriangleMesh& closed, Device device) {
  const Submesh south = cut_to_disk(closed, 0.5);
  std::vector<char> in_north(closed.triangle_count(), 1);
  for (std::uint32_t f : south.triangle_map) in_north[f] = 0;
  const Submesh north = extract_triangles(closed, in_north);
  const Topology south_topology = build_topology(south.mesh), north_topology = build_topology(north.mesh);
  require_disk(north_topology, "spherical embedding (second half)");
  TG_CHECK_ARG(south.vertex_map.size() + north.vertex_map.size() ==
                   closed.vertex_count() + south_topology.boundary_loops[0].size(),
               "spherical embedding: a vertex is in no triangle");

  // The south half sets the shared boundary on the unit circle; the north half keeps those positions (its loop
  // runs the other way, so its layout is mirrored, and mirroring it back onto the north keeps the orientation).
  const std::vector<double> south_uv = tutte_embedding(south.mesh, south_topology.boundary_loops[0], device);
  std::vector<double> points(3 * closed.vertex_count(), 0.0);
  lift_disk(south_uv, south.vertex_map, false, points);
  std::vector<double> north_boundary(2 * north.vertex_map.size(), 0.0);
  std::vector<std::uint32_t> north_of(closed.vertex_count(), UINT32_MAX);
  for (std::uint32_t v = 0; v < north.vertex_map.size(); ++v) north_of[north.vertex_map[v]] = v;
  for (std::uint32_t v = 0; v < south.vertex_map.size(); ++v) {
    const std::uint32_t w = north_of[south.vertex_map[v]];
    if (w == UINT32_MAX) continue;
    north_boundary[2 * w] = south_uv[2 * v];
    north_boundary[2 * w + 1] = south_uv[2 * v + 1];
  }
  const std::vector<double> north_uv =
      tutte_embedding(north.mesh, north_topology.boundary_loops[0], device, &north_boundary);
  lift_disk(north_uv, north.vertex_map, true, points);
  // Counter-clockwise in the plane is clockwise seen from outside below the plane: mirror when most triangles
  // come out inverted.
  if (2 * count_inverted_sphere(points, closed.triangles) > closed.triangle_count())
    for (std::size_t v = 0; v < closed.vertex_count(); ++v) points[3 * v] = -points[3 * v];
  return points;
}

SphericalResult spherical_embedding(const TriangleMesh& closed, const SphericalOptions& options) {
  SphericalResult r;
  r.points = hemisphere_tutte(closed, options.solve.device);
  r.initial_inverted = count_inverted_sphere(r.points, closed.triangles);
  const double sphere_area = 4.0 * kPi;
  const auto rest = rest_triangles<double>(closed, sphere_area / total_area(closed));
  r.lower_bound = 4.0 * sphere_area;

  // Untangling: a finite energy whose epsilon shrinks as the inverted triangles are pushed back.
  double epsilon = 1.0;
  for (std::size_t inverted = r.initial_inverted; inverted > 0 && r.untangle_rounds < options.untangle_rounds;
       ++r.untangle_rounds) {
    SphereObjective untangle(closed, r.points, rest, SphereObjective::Energy::Untangle, epsilon, options.solve);
    solve_on_sphere(untangle, options.solve, options.untangle_iterations);
    r.points = untangle.points();
    inverted = count_inverted_sphere(r.points, closed.triangles);
    epsilon *= 0.1;
  }
  const std::size_t remaining = count_inverted_sphere(r.points, closed.triangles);
  TG_REQUIRE(remaining == 0, InvalidArgument, "spherical embedding: ", remaining, " triangles still inverted after ",
             r.untangle_rounds, " untangling rounds (a degenerate or non-manifold input?)");

  SphereObjective distortion(closed, r.points, rest, SphereObjective::Energy::Distortion, 0.0, options.solve);
  r.solve = solve_on_sphere(distortion, options.solve, options.solve.stop.max_iterations);
  r.points = distortion.points();
  r.energy = r.solve.energy;
  r.inverted = count_inverted_sphere(r.points, closed.triangles);
  return r;
}

}  // namespace tilegrad::mesh
