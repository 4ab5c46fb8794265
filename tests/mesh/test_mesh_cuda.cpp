// The mesh energies and applications on CUDA (energies compiled by nvcc inside tilegrad_mesh) against the CPU
// reference; the hand-written CUDA gradients against the AD ones.
#include <gtest/gtest.h>

#include <cmath>

#include "mesh_test_util.h"
#include "test_support.h"
#include "tilegrad/ad/sparse_cholesky.h"
#include "tilegrad/mesh/cloth.h"
#include "tilegrad/mesh/generate.h"
#include "tilegrad/mesh/handwritten_gradients.h"
#include "tilegrad/mesh/parameterization.h"
#include "tilegrad/mesh/smoothing.h"
#include "tilegrad/mesh/spherical.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"

using namespace tilegrad;
using namespace tilegrad::mesh;

namespace {

std::vector<double> widen(const std::vector<float>& f) { return std::vector<double>(f.begin(), f.end()); }

struct Passes {
  double energy;
  std::vector<double> gradient, hessian, hvp;
};

template <int D>
Passes run_passes(ElementProblem<double, D>& p, const std::vector<double>& x, const std::vector<double>& v) {
  const Device device = p.device();
  auto dx = Buffer<double>::from(x, device), dv = Buffer<double>::from(v, device);
  Buffer<double> g(x.size(), device), hv(x.size(), device);
  Passes r;
  r.energy = p.gradient(dx.cview(), g.view());
  r.hessian = p.hessian(dx.cview()).values.to_vector();
  p.hvp(dx.cview(), dv.cview(), hv.view());
  r.gradient = g.to_vector();
  r.hvp = hv.to_vector();
  return r;
}

// Builds the same problem on both devices with `add` and compares every pass (Owned and Atomic on CUDA).
template <int D, class Add>
void compare_devices(std::size_t vertices, const std::vector<double>& x, Add add, bool project) {
  const auto v = test::random_vector(x.size(), 31);
  ElementProblem<double, D> cpu(vertices, Device::Cpu);
  add(cpu);
  cpu.options().project_psd = project;
  const Passes want = run_passes(cpu, x, v);
  for (Accumulation a : {Accumulation::Owned, Accumulation::Atomic}) {
    ElementProblem<double, D> gpu(vertices, Device::Cuda);
    add(gpu);
    gpu.options().project_psd = project;
    gpu.options().accumulation = a;
    const Passes got = run_passes(gpu, x, v);
    EXPECT_NEAR(got.energy, want.energy, 1e-11 * std::fabs(want.energy)) << to_string(a);
    EXPECT_LT(test::max_scaled_difference(got.gradient, want.gradient), 1e-11) << to_string(a);
    EXPECT_LT(test::max_scaled_difference(got.hessian, want.hessian), 1e-10) << to_string(a);
    EXPECT_LT(test::max_scaled_difference(got.hvp, want.hvp), 1e-10) << to_string(a);
  }
}

}  // namespace

TEST(MeshCuda, SmoothingEnergiesMatchTheCpu) {
  TG_REQUIRE_CUDA();
  const TriangleMesh m = test::bumpy_sphere(test::scaled(16) >= 16 ? 5 : 3, 0.02, 1);
  const auto x = m.vertices;
  compare_devices<3>(m.vertex_count(), x, [&](ElementProblem<double, 3>& p) {
    add_cotangent_dirichlet(p, m);
    add_uniform_dirichlet(p, m, 0.5);
    add_soft_anchors(p, m, {}, 0.1);
  }, false);
}

TEST(MeshCuda, DistortionAndClothEnergiesMatchTheCpu) {
  TG_REQUIRE_CUDA();
  const std::uint32_t n = test::scaled(16) >= 16 ? 120 : 30;
  const TriangleMesh patch = developable_patch(n, n);
  std::vector<double> uv(2 * patch.vertex_count());
  const auto noise = test::random_vector(uv.size(), 2, -0.1 / n, 0.1 / n);
  for (std::size_t v = 0; v < patch.vertex_count(); ++v)
    for (int c = 0; c < 2; ++c) uv[2 * v + c] = patch.vertices[3 * v + c] + noise[2 * v + c];
  compare_devices<2>(
      patch.vertex_count(), uv, [&](ElementProblem<double, 2>& p) { add_symmetric_dirichlet(p, patch); }, true);

  const TriangleMesh cloth = grid(n, n);
  const Topology t = build_topology(cloth);
  auto x = cloth.vertices;
  const auto bump = test::random_vector(x.size(), 5, -0.2 / n, 0.2 / n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += bump[i];
  std::vector<VertexMass<double>> masses(cloth.vertex_count(), VertexMass<double>{1e-3, {0, 0, 0}});
  compare_devices<3>(cloth.vertex_count(), x, [&](ElementProblem<double, 3>& p) {
    add_springs(p, cloth, t.edges, 100.0);
    add_bending(p, cloth, t.diamonds, 0.01);
    add_inertia_gravity(p, masses, 1.0 / 60, 9.81);
  }, true);
}

TEST(MeshCuda, HandwrittenGradientsEqualTheAdGradients) {
  TG_REQUIRE_CUDA();
  const TriangleMesh m = test::bumpy_sphere(test::scaled(16) >= 16 ? 5 : 3, 0.02, 8);
  const auto xd = test::random_vector(m.vertices.size(), 9);
  std::vector<float> x(xd.begin(), xd.end());
  ElementProblem<float, 3> p(m.vertex_count(), Device::Cuda);
  p.options().accumulation = Accumulation::Atomic;
  add_cotangent_dirichlet(p, m, 1.3);
  auto dx = Buffer<float>::from(x, Device::Cuda);
  Buffer<float> g_ad(x.size(), Device::Cuda), g_hand(x.size(), Device::Cuda);
  p.gradient_only(dx.cview(), g_ad.view());
  const auto weights = Buffer<CotangentWeights<float>>::from(cotangent_weights<float>(m), Device::Cuda);
  const auto tris = Buffer<std::uint32_t>::from(m.triangles, Device::Cuda);
  handwritten_cotangent_gradient<float>(tris.cview(), weights.cview(), 1.3f, dx.cview(), g_hand.view());
  EXPECT_LT(test::max_scaled_difference(widen(g_hand.to_vector()), widen(g_ad.to_vector())), 1e-5);

  const TriangleMesh patch = developable_patch(60, 60);
  std::vector<float> uv(2 * patch.vertex_count());
  for (std::size_t v = 0; v < patch.vertex_count(); ++v)
    for (int c = 0; c < 2; ++c) uv[2 * v + c] = static_cast<float>(patch.vertices[3 * v + c]);
  ElementProblem<float, 2> q(patch.vertex_count(), Device::Cuda);
  q.options().accumulation = Accumulation::Atomic;
  add_symmetric_dirichlet(q, patch);
  auto duv = Buffer<float>::from(uv, Device::Cuda);
  Buffer<float> s_ad(uv.size(), Device::Cuda), s_hand(uv.size(), Device::Cuda);
  q.gradient_only(duv.cview(), s_ad.view());
  const auto rest = Buffer<RestTriangle<float>>::from(rest_triangles<float>(patch), Device::Cuda);
  const auto ptris = Buffer<std::uint32_t>::from(patch.triangles, Device::Cuda);
  handwritten_symmetric_dirichlet_gradient<float>(ptris.cview(), rest.cview(), duv.cview(), s_hand.view());
  EXPECT_LT(test::max_scaled_difference(widen(s_hand.to_vector()), widen(s_ad.to_vector())), 1e-5);
}

// Under compute-sanitizer (TILEGRAD_TEST_SCALE=small) the applications run on smaller meshes and fewer frames:
// every Newton and PCG iteration is a handful of kernel launches.
bool small_scale() { return test::scaled(16) < 16; }

TEST(MeshCuda, SmoothingOnTheGpuMatchesTheCpu) {
  TG_REQUIRE_CUDA();
  SmoothingOptions o;
  o.solve.device = Device::Cuda;
  o.solve.stop.gradient_tolerance = 1e-10;
  const TriangleMesh noisy = test::bumpy_sphere(small_scale() ? 2 : 4, 0.05, 3);
  const SmoothingResult gpu = smooth_mesh(noisy, o);
  EXPECT_TRUE(gpu.solve.converged) << gpu.solve.reason;
  o.solve.device = Device::Cpu;
  const SmoothingResult cpu = smooth_mesh(noisy, o);
  EXPECT_LT(test::max_scaled_difference(gpu.mesh.vertices, cpu.mesh.vertices), 1e-8);
}

TEST(MeshCuda, SparseCholeskyFactorsFromDeviceMemory) {
  TG_REQUIRE_CUDA();
  if (!SparseCholesky<double>::available()) GTEST_SKIP() << "this build has no CHOLMOD";
  // The cotangent Dirichlet Hessian of a bumpy sphere (+ I: the Laplacian alone is singular), on both devices.
  const TriangleMesh m = test::bumpy_sphere(small_scale() ? 2 : 4, 0.05, 5);
  ElementProblem<double, 3> cpu_problem(m.vertex_count(), Device::Cpu), gpu_problem(m.vertex_count(), Device::Cuda);
  add_cotangent_dirichlet(cpu_problem, m);
  add_cotangent_dirichlet(gpu_problem, m);
  const auto x_gpu = Buffer<double>::from(m.vertices, Device::Cuda);
  const std::vector<double> b = test::random_vector(m.vertices.size(), 9);
  SparseCholesky<double> c_cpu, c_gpu;
  ASSERT_TRUE(c_cpu.factor(cpu_problem.hessian(View<const double>(m.vertices.data(), m.vertices.size(), Device::Cpu)), 1.0));
  ASSERT_TRUE(c_gpu.factor(gpu_problem.hessian(x_gpu.cview()), 1.0));
  std::vector<double> s_cpu(b.size());
  c_cpu.solve(View<const double>(b.data(), b.size(), Device::Cpu), View<double>(s_cpu.data(), b.size(), Device::Cpu));
  const auto b_gpu = Buffer<double>::from(b, Device::Cuda);
  Buffer<double> s_gpu(b.size(), Device::Cuda);
  c_gpu.solve(b_gpu.cview(), s_gpu.view());
  EXPECT_LT(test::max_scaled_difference(s_gpu.to_vector(), s_cpu), 1e-10);
  // The second factorisation of the same pattern reuses the analysis.
  ASSERT_TRUE(c_gpu.factor(gpu_problem.hessian(x_gpu.cview()), 2.0));
  EXPECT_EQ(c_gpu.stats().analyses, 1);
}

TEST(MeshCuda, ParameterizationOnTheGpuReachesTheBound) {
  TG_REQUIRE_CUDA();
  ParameterizationOptions o;
  o.solve.device = Device::Cuda;
  const std::uint32_t n = small_scale() ? 8 : 40;
  const ParameterizationResult r = parameterize(developable_patch(n, n, 0.2), o);
  EXPECT_EQ(r.inverted, 0u);
  EXPECT_LT(r.energy, 1.01 * r.lower_bound);
}

TEST(MeshCuda, ClothOnTheGpuFollowsTheCpu) {
  TG_REQUIRE_CUDA();
  ClothOptions o;
  o.resolution = small_scale() ? 4 : 16;
  o.frames = small_scale() ? 2 : 10;
  o.solve.device = Device::Cuda;
  const ClothResult gpu = simulate_cloth(o);
  o.solve.device = Device::Cpu;
  const ClothResult cpu = simulate_cloth(o);
  // Both Newton solves stop at the same gradient tolerance, not at the same bits.
  EXPECT_LT(test::max_scaled_difference(gpu.mesh.vertices, cpu.mesh.vertices), 1e-4);
  for (const ClothFrame& f : gpu.frames) EXPECT_TRUE(f.solves_converged) << "frame " << f.frame;
}

TEST(MeshCuda, SphericalEmbeddingOnTheGpuHasNoInvertedTriangles) {
  TG_REQUIRE_CUDA();
  SphericalOptions o;
  o.solve.device = Device::Cuda;
  o.solve.stop.max_iterations = small_scale() ? 5 : 40;
  const SphericalResult r = spherical_embedding(test::bumpy_sphere(small_scale() ? 1 : 3, 0.3, 2), o);
  EXPECT_EQ(r.inverted, 0u);
}
