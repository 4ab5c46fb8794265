// The four mesh applications on small meshes, each against its stated criterion: smoothing converges and
// removes noise, parameterization reaches 4 sum(A) within 1% on a developable patch without flips, cloth has
// no NaN and a decreasing energy, spherical embedding ends without inverted triangles.
#include <gtest/gtest.h>

#include <cmath>

#include "mesh_test_util.h"
#include "test_support.h"
#include "tilegrad/mesh/cloth.h"
#include "tilegrad/mesh/generate.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/parameterization.h"
#include "tilegrad/mesh/smoothing.h"
#include "tilegrad/mesh/spherical.h"
#include "tilegrad/mesh/topology.h"

using namespace tilegrad;
using namespace tilegrad::mesh;

namespace {

// Roughness of a sphere-like mesh: the spread of the vertex radii relative to their mean (smoothing may shrink
// the mesh; it must make it rounder).
double roughness(const TriangleMesh& m) {
  std::vector<double> r(m.vertex_count());
  double mean = 0.0;
  for (std::size_t v = 0; v < r.size(); ++v) {
    const double* p = &m.vertices[3 * v];
    r[v] = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    mean += r[v] / static_cast<double>(r.size());
  }
  double s = 0.0;
  for (double x : r) s += (x - mean) * (x - mean);
  return std::sqrt(s / static_cast<double>(r.size())) / mean;
}

}  // namespace

TEST(Applications, SmoothingRemovesNoiseAndAllSolversAgree) {
  const TriangleMesh noisy = test::bumpy_sphere(2, 0.05, 21);
  SmoothingOptions o;
  o.weights = DirichletWeights::Uniform;
  o.anchor_weight = 2.0;
  o.solve.stop.gradient_tolerance = 1e-10;
  const SmoothingResult newton = smooth_mesh(noisy, o);
  EXPECT_TRUE(newton.solve.converged) << newton.solve.reason;
  EXPECT_LE(newton.solve.iterations, 3);  // a quadratic energy: one Newton step up to the PCG tolerance
  EXPECT_LT(roughness(newton.mesh), 0.5 * roughness(noisy));

  o.solve.solver = SolverKind::Lbfgs;
  o.solve.stop.max_iterations = 500;
  const SmoothingResult lbfgs = smooth_mesh(noisy, o);
  EXPECT_TRUE(lbfgs.solve.converged) << lbfgs.solve.reason;
  EXPECT_NEAR(lbfgs.solve.energy, newton.solve.energy, 1e-8 * std::fabs(newton.solve.energy));

  o.solve.solver = SolverKind::GradientDescent;
  o.solve.stop.max_iterations = 2000;
  o.solve.stop.gradient_tolerance = 1e-6;
  const SmoothingResult gd = smooth_mesh(noisy, o);
  EXPECT_NEAR(gd.solve.energy, newton.solve.energy, 1e-5 * std::fabs(newton.solve.energy));
}

TEST(Applications, SmoothingWithFixedBoundaryFlattensAPatch) {
  TriangleMesh patch = grid(8, 8);
  const auto bump = test::random_vector(patch.vertex_count(), 5, -0.1, 0.1);
  const Topology t = build_topology(patch);
  std::vector<char> boundary(patch.vertex_count(), 0);
  for (std::uint32_t v : t.boundary_loops[0]) boundary[v] = 1;
  for (std::size_t v = 0; v < patch.vertex_count(); ++v)
    if (!boundary[v]) patch.vertices[3 * v + 2] = bump[v];
  SmoothingOptions o;  // cotangent weights, boundary fixed, no soft anchors
  o.anchor_weight = 0.0;
  o.solve.stop.gradient_tolerance = 1e-12;
  const SmoothingResult r = smooth_mesh(patch, o);
  EXPECT_TRUE(r.solve.converged) << r.solve.reason;
  EXPECT_EQ(r.fixed_vertices, t.boundary_loops[0].size());
  for (std::size_t v = 0; v < patch.vertex_count(); ++v) EXPECT_NEAR(r.mesh.vertices[3 * v + 2], 0.0, 1e-9);
  SmoothingOptions loose = o;
  loose.fix_boundary = false;
  EXPECT_THROW(smooth_mesh(patch, loose), InvalidArgument);
}

TEST(Applications, ParameterizationReachesTheBoundOnADevelopablePatch) {
  const TriangleMesh patch = developable_patch(14, 12, 0.2, 1.0);
  const ParameterizationResult r = parameterize(patch);
  EXPECT_EQ(r.inverted, 0u);
  EXPECT_GT(r.initial_energy, 1.05 * r.lower_bound);  // the Tutte start is far from isometric
  EXPECT_LT(r.energy, 1.01 * r.lower_bound);
  EXPECT_GE(r.energy, r.lower_bound * (1 - 1e-12));
  for (std::size_t k = 1; k < r.solve.log.size(); ++k) EXPECT_LE(r.solve.log[k].energy, r.solve.log[k - 1].energy);
}

TEST(Applications, ParameterizationOfAClosedMeshCutsItFirst) {
  ParameterizationOptions o;
  o.solve.stop.max_iterations = 30;
  const ParameterizationResult r = parameterize(test::bumpy_sphere(2, 0.02, 6), o);
  EXPECT_EQ(r.inverted, 0u);
  EXPECT_LT(r.disk.triangle_count(), 320u);
  EXPECT_LT(r.energy, r.initial_energy);
  EXPECT_GE(r.energy, r.lower_bound);
}

TEST(Applications, ClothFallsWithoutNanAndLosesEnergy) {
  ClothOptions o;
  o.resolution = 8;
  o.frames = 24;
  int calls = 0;
  const ClothResult r = simulate_cloth(o, [&](const ClothFrame&, const TriangleMesh& m) {
    ++calls;
    for (double c : m.vertices) ASSERT_TRUE(std::isfinite(c));
  });
  EXPECT_EQ(calls, o.frames + 1);
  ASSERT_EQ(r.frames.size(), static_cast<std::size_t>(o.frames + 1));
  for (std::size_t f = 1; f < r.frames.size(); ++f) {
    const ClothFrame& frame = r.frames[f];
    EXPECT_TRUE(frame.solves_converged) << "frame " << f;
    EXPECT_LE(frame.worst_potential_change, 0.0) << "frame " << f;
    // Implicit Euler dissipates: the mechanical energy never grows.
    EXPECT_LE(frame.total_energy(), r.frames[f - 1].total_energy() + 1e-9) << "frame " << f;
  }
  double lowest = 0.0;
  for (std::size_t v = 0; v < r.mesh.vertex_count(); ++v) lowest = std::min(lowest, r.mesh.vertices[3 * v + 2]);
  EXPECT_LT(lowest, -0.2);  // it fell
  // The pinned corners did not move.
  EXPECT_EQ(r.mesh.vertices[3 * (8 * 9) + 2], 0.0);
  EXPECT_EQ(r.mesh.vertices[3 * (8 * 9 + 8) + 2], 0.0);
}

TEST(Applications, SphericalEmbeddingEndsWithoutInvertedTriangles) {
  const TriangleMesh m = test::bumpy_sphere(2, 0.3, 11);
  SphericalOptions o;
  o.solve.stop.max_iterations = 40;
  const SphericalResult r = spherical_embedding(m, o);
  EXPECT_EQ(r.inverted, 0u);
  for (std::size_t v = 0; v < m.vertex_count(); ++v) {
    const double* p = &r.points[3 * v];
    EXPECT_NEAR(p[0] * p[0] + p[1] * p[1] + p[2] * p[2], 1.0, 1e-12);
  }
  EXPECT_GE(r.energy, r.lower_bound);
  EXPECT_TRUE(std::isfinite(r.energy));
}

TEST(Applications, SphericalEmbeddingOfTheSharedKnight) {
  TG_REQUIRE_SHARED_DATA("mesh_small_decimated_knight/decimated-knight.off");
  const TriangleMesh knight =
      io::read_mesh(test::shared_data_dir() + "/mesh_small_decimated_knight/decimated-knight.off");
  SphericalOptions o;
  o.solve.stop.max_iterations = 40;
  const SphericalResult r = spherical_embedding(knight, o);
  EXPECT_EQ(r.inverted, 0u);
  EXPECT_TRUE(std::isfinite(r.energy));
}
