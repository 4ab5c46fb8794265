// The mesh energies: element gradients, Hessians and HVPs against central differences in double; identities
// (cotangent Dirichlet Hessian = cotangent Laplacian (x) I, symmetric Dirichlet minimum 4A); hand-written
// gradients equal to the AD ones; whole-problem checks of the cloth energy.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "mesh_test_util.h"
#include "tilegrad/mesh/element_data.h"
#include "tilegrad/mesh/generate.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/handwritten_gradients.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"

using namespace tilegrad;
using namespace tilegrad::mesh;

namespace {

template <int N>
std::vector<double> to_std(const Vec<double, N>& v) {
  return std::vector<double>(v.v, v.v + N);
}
template <int N>
Vec<double, N> from_std(const std::vector<double>& v) {
  Vec<double, N> r;
  for (int i = 0; i < N; ++i) r[i] = v[i];
  return r;
}

// Gradient, Hessian and HVP of one element against central differences of its value and gradient.
template <int N, class Energy, class Data>
void check_element(const Energy& energy, const Vec<double, N>& x, const Data& data, double tolerance = 1e-7) {
  auto value = [&](const std::vector<double>& at) { return element_value(energy, from_std<N>(at), data); };
  auto gradient = [&](const std::vector<double>& at) {
    return to_std<N>(element_gradient(energy, from_std<N>(at), data).gradient);
  };
  ASSERT_TRUE(std::isfinite(value(to_std<N>(x))));
  const auto g = element_gradient(energy, x, data);
  EXPECT_DOUBLE_EQ(g.value, value(to_std<N>(x)));
  EXPECT_LT(test::max_scaled_difference(to_std<N>(g.gradient), test::central_gradient(value, to_std<N>(x), 1e-6)),
            tolerance);
  const auto h = element_hyper(energy, x, data);
  std::vector<double> dense(N * N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) dense[i * N + j] = h.hess(i, j);
  EXPECT_LT(test::max_scaled_difference(dense, test::central_jacobian(gradient, to_std<N>(x), 1e-5)), tolerance);
  const auto v = from_std<N>(test::random_vector(N, 17));
  const auto hv = element_hvp_direct(energy, x, v, data);
  EXPECT_LT(test::max_scaled_difference(to_std<N>(hv), to_std<N>(packed_multiply(h, v))), 1e-12);
}

SphereTriangle<double> sphere_triangle() {
  TriangleMesh m;
  m.vertices = {0.9, 0.1, 0.2, 0.7, 0.6, 0.1, 0.8, 0.2, 0.7};
  for (int k = 0; k < 3; ++k) {
    double* p = &m.vertices[3 * k];
    const double len = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int c = 0; c < 3; ++c) p[c] /= len;
  }
  m.triangles = {0, 1, 2};
  TriangleMesh rest;
  rest.vertices = {0, 0, 0, 0.6, 0.1, 0, 0.2, 0.5, 0.1};
  rest.triangles = {0, 1, 2};
  return sphere_triangles(m, m.vertices, rest_triangles<double>(rest))[0];
}

RestTriangle<double> some_rest_triangle() {
  TriangleMesh rest;
  rest.vertices = {0.1, 0, 0.3, 1.1, 0.2, 0.1, 0.4, 0.8, -0.2};
  rest.triangles = {0, 1, 2};
  return rest_triangle<double>(rest, 0);
}

// The cotangent Laplacian built independently from angles: L_ij = -(cot a + cot b) / 2, L_ii = -sum_j L_ij.
std::map<std::pair<std::uint32_t, std::uint32_t>, double> cotangent_laplacian(const TriangleMesh& m) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> l;
  for (std::size_t f = 0; f < m.triangle_count(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t o = m.triangles[3 * f + k], i = m.triangles[3 * f + (k + 1) % 3],
                          j = m.triangles[3 * f + (k + 2) % 3];
      double a[3], b[3];
      for (int c = 0; c < 3; ++c) {
        a[c] = m.vertices[3 * i + c] - m.vertices[3 * o + c];
        b[c] = m.vertices[3 * j + c] - m.vertices[3 * o + c];
      }
      const double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      const double angle = std::acos(
          ab / std::sqrt((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) * (b[0] * b[0] + b[1] * b[1] + b[2] * b[2])));
      const double w = 0.5 / std::tan(angle);
      l[{i, j}] -= w;
      l[{j, i}] -= w;
      l[{i, i}] += w;
      l[{j, j}] += w;
    }
  }
  return l;
}

View<const double> cview(const std::vector<double>& v) { return {v.data(), v.size(), Device::Cpu}; }
View<double> mview(std::vector<double>& v) { return {v.data(), v.size(), Device::Cpu}; }

}  // namespace

TEST(MeshEnergies, SmoothingEnergiesMatchFiniteDifferences) {
  const Vec<double, 6> edge{{0.1, -0.4, 0.7, 1.2, 0.3, -0.5}};
  check_element(EdgeDirichlet<double, 3>{0.7}, edge, NoElementData{});
  const Vec<double, 9> tri{{0.1, -0.4, 0.7, 1.2, 0.3, -0.5, 0.2, 0.9, 0.4}};
  check_element(CotangentDirichlet<double>{1.5}, tri, CotangentWeights<double>{{0.3, -0.1, 0.5}});
  check_element(SoftAnchor<double>{2.0}, Vec<double, 3>{{0.3, 0.2, -1.0}}, AnchorTarget<double>{{1.0, -0.5, 0.25}});
}

TEST(MeshEnergies, DistortionEnergiesMatchFiniteDifferences) {
  const Vec<double, 6> uv{{0.0, 0.1, 1.2, 0.15, 0.3, 0.9}};
  check_element(SymmetricDirichlet<double>{}, uv, some_rest_triangle(), 1e-6);
  const Vec<double, 6> u{{0.01, -0.02, 0.03, 0.0, -0.015, 0.02}};
  check_element(SphericalSymmetricDirichlet<double>{}, u, sphere_triangle(), 1e-6);
  check_element(UntangleSphere<double>{0.1, 1.0}, u, sphere_triangle(), 1e-6);
  // Untangling is finite on an inverted configuration, where the barrier energy is +inf.
  // Vertex 2 pushed across the edge (0, 1): its tangent step towards the edge midpoint, overshooting.
  const SphereTriangle<double> t = sphere_triangle();
  Vec<double, 6> flip = Vec<double, 6>::zero();
  for (int c = 0; c < 3; ++c) {
    const double towards = 0.5 * (t.base[0][c] + t.base[1][c]) - t.base[2][c];
    flip[4] += 2.5 * towards * t.tangent[2][0][c];
    flip[5] += 2.5 * towards * t.tangent[2][1][c];
  }
  EXPECT_TRUE(std::isinf(element_value(SphericalSymmetricDirichlet<double>{}, flip, sphere_triangle())));
  check_element(UntangleSphere<double>{0.1, 1.0}, flip, sphere_triangle(), 1e-6);
}

TEST(MeshEnergies, SymmetricDirichletIsFourAreaAtRotationsAndInfiniteWhenInverted) {
  TriangleMesh rest;
  rest.vertices = {0, 0, 0, 2, 0, 0, 0.5, 1.5, 0};
  rest.triangles = {0, 1, 2};
  const auto r = rest_triangle<double>(rest, 0);
  EXPECT_DOUBLE_EQ(r.area, 1.5);
  const double c = std::cos(0.7), s = std::sin(0.7);
  auto rotated = [&](double x, double y) { return std::pair<double, double>{c * x - s * y + 3, s * x + c * y - 1}; };
  const auto a = rotated(0, 0), b = rotated(2, 0), d = rotated(0.5, 1.5);
  const Vec<double, 6> uv{{a.first, a.second, b.first, b.second, d.first, d.second}};
  EXPECT_NEAR(element_value(SymmetricDirichlet<double>{}, uv, r), 4 * 1.5, 1e-12);
  const Vec<double, 6> mirrored{{a.first, a.second, d.first, d.second, b.first, b.second}};
  EXPECT_TRUE(std::isinf(element_value(SymmetricDirichlet<double>{}, mirrored, r)));
}

TEST(MeshEnergies, ClothEnergiesMatchFiniteDifferences) {
  check_element(Spring<double>{300.0}, Vec<double, 6>{{0.1, -0.4, 0.7, 1.2, 0.3, -0.5}}, 0.7);
  const Vec<double, 12> diamond{{0, 0, 0, 1, 0.1, 0, 0.4, 0.9, 0.2, 0.6, -0.8, 0.3}};
  check_element(DiscreteShellBending<double>{0.5}, diamond, HingeRest<double>{1.3, 0.2}, 1e-6);
  check_element(InertiaGravity<double>{3600.0, 9.81}, Vec<double, 3>{{0.3, 0.2, -1.0}},
                VertexMass<double>{0.01, {0.31, 0.19, -0.98}});
}

TEST(MeshEnergies, CotangentDirichletHessianIsTheCotangentLaplacianTimesIdentity) {
  for (const TriangleMesh& m : {test::bumpy_sphere(1, 0.05, 3), developable_patch(5, 4)}) {
    ElementProblem<double, 3> p(m.vertex_count(), Device::Cpu);
    add_cotangent_dirichlet(p, m);
    const auto h = to_host(p.hessian(cview(m.vertices)));
    const auto l = cotangent_laplacian(m);
    double largest = 0.0;
    for (const auto& kv : l) largest = std::max(largest, std::fabs(kv.second));
    for (std::size_t r = 0; r < h.rows; ++r) {
      for (std::uint32_t k = h.row_offsets[r]; k < h.row_offsets[r + 1]; ++k) {
        const std::uint32_t c = h.columns[k];
        const auto it = l.find({static_cast<std::uint32_t>(r / 3), c / 3});
        const double want = r % 3 == c % 3 && it != l.end() ? it->second : 0.0;
        EXPECT_NEAR(h.values[k], want, 1e-12 * largest) << r << ", " << c;
      }
    }
    for (const auto& kv : l) EXPECT_NEAR(h.at(3 * kv.first.first, 3 * kv.first.second), kv.second, 1e-12 * largest);
  }
}

TEST(MeshEnergies, HandwrittenGradientsEqualTheAdGradients) {
  const TriangleMesh m = test::bumpy_sphere(2, 0.05, 5);
  const auto x = test::random_vector(m.vertices.size(), 8);
  ElementProblem<double, 3> p(m.vertex_count(), Device::Cpu);
  add_cotangent_dirichlet(p, m, 1.7);
  std::vector<double> g_ad(x.size()), g_hand(x.size());
  p.gradient_only(cview(x), mview(g_ad));
  const auto weights = cotangent_weights<double>(m);
  handwritten_cotangent_gradient<double>({m.triangles.data(), m.triangles.size(), Device::Cpu},
                                         {weights.data(), weights.size(), Device::Cpu}, 1.7, cview(x), mview(g_hand));
  EXPECT_LT(test::max_scaled_difference(g_hand, g_ad), 1e-13);

  // Symmetric Dirichlet on a perturbed flat grid (every triangle positively oriented).
  const TriangleMesh patch = developable_patch(9, 7);
  std::vector<double> uv(2 * patch.vertex_count());
  const auto noise = test::random_vector(uv.size(), 2, -0.01, 0.01);
  for (std::size_t v = 0; v < patch.vertex_count(); ++v) {
    uv[2 * v] = patch.vertices[3 * v] + noise[2 * v];
    uv[2 * v + 1] = patch.vertices[3 * v + 1] + noise[2 * v + 1];
  }
  ElementProblem<double, 2> q(patch.vertex_count(), Device::Cpu);
  add_symmetric_dirichlet(q, patch);
  std::vector<double> s_ad(uv.size()), s_hand(uv.size());
  q.gradient_only(cview(uv), mview(s_ad));
  const auto rest = rest_triangles<double>(patch);
  handwritten_symmetric_dirichlet_gradient<double>({patch.triangles.data(), patch.triangles.size(), Device::Cpu},
                                                   {rest.data(), rest.size(), Device::Cpu}, cview(uv), mview(s_hand));
  EXPECT_LT(test::max_scaled_difference(s_hand, s_ad), 1e-12);
}

TEST(MeshEnergies, ClothProblemDerivativesAndAssembly) {
  TriangleMesh cloth = grid(4, 3, 1.0, 0.8);
  const Topology t = build_topology(cloth);
  ElementProblem<double, 3> p(cloth.vertex_count(), Device::Cpu);
  add_springs(p, cloth, t.edges, 50.0);
  add_bending(p, cloth, t.diamonds, 0.3);
  std::vector<VertexMass<double>> masses(cloth.vertex_count(), VertexMass<double>{0.02, {0, 0, 0}});
  add_inertia_gravity(p, masses, 0.05, 9.81);
  auto x = cloth.vertices;
  const auto bump = test::random_vector(x.size(), 12, -0.05, 0.05);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += bump[i];
  auto grad = [&](const std::vector<double>& at) {
    std::vector<double> g(at.size());
    p.gradient(cview(at), mview(g));
    return g;
  };
  const auto fd = test::central_gradient([&](const std::vector<double>& at) { return p.value(cview(at)); }, x, 1e-6);
  EXPECT_LT(test::max_scaled_difference(grad(x), fd), 1e-7);
  const auto h = to_host(p.hessian(cview(x)));
  EXPECT_LT(test::max_scaled_difference(test::dense(h), test::central_jacobian(grad, x, 1e-5)), 1e-6);
  const auto v = test::random_vector(x.size(), 4);
  std::vector<double> hv(v.size());
  p.hvp(cview(x), cview(v), mview(hv));
  EXPECT_LT(test::max_scaled_difference(hv, h.multiply(v)), 1e-12);
  p.options().accumulation = Accumulation::Atomic;
  EXPECT_LT(test::max_scaled_difference(to_host(p.hessian(cview(x))).values, h.values), 1e-14);
}
