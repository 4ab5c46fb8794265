// The element-energy problem on the CPU: gradients, Hessians, HVPs and diagonals against central differences in
// double, Atomic vs Owned assembly, bitwise reproducibility, PSD projection, fixed variables and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "mesh_test_util.h"
#include "tilegrad/ad/element_problem.h"
#include "tilegrad/ad/vector_ops.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace tilegrad;

namespace {

// A non-convex energy over a triangle of 2D points, using many entries of the chain-rule table.
struct Wobbly {
  template <class S>
  S operator()(const Vec<S, 6>& x, const double& w) const {
    using T = scalar_of_t<S>;
    return sin(x[0] * x[1]) * w + exp(T(0.3) * x[2]) * sqr(x[3]) + log(T(1) + sqr(x[4])) * x[5] +
           atan2(x[1], T(2) + x[0] * x[0]) + sqrt(T(1) + sqr(x[2] - x[4]));
  }
};

// (|xi - xj| - L)^2 over an edge.
struct Stretch {
  template <class S>
  S operator()(const Vec<S, 4>& x, const NoElementData&) const {
    using T = scalar_of_t<S>;
    return sqr(sqrt(sqr(x[0] - x[2]) + sqr(x[1] - x[3])) - T(0.5));
  }
};

constexpr std::uint32_t kVertices = 23;

std::vector<std::uint32_t> triangles() {
  std::vector<std::uint32_t> t;
  for (std::uint32_t f = 0; f < 31; ++f)
    t.insert(t.end(), {f % kVertices, (7 * f + 3) % kVertices, (5 * f + 11) % kVertices});
  t.insert(t.end(), {4, 4, 9});  // a repeated vertex: both local slots land on the same variables
  return t;
}
std::vector<std::uint32_t> edges() {
  std::vector<std::uint32_t> e;
  for (std::uint32_t i = 0; i < kVertices; ++i) e.insert(e.end(), {i, (i + 5) % kVertices});
  return e;
}

// Two terms over 23 2D vertices; vertex 22 is only in edges, and the problem is fully non-convex.
struct Fixture {
  ElementProblem<double, 2> problem{kVertices, Device::Cpu};
  std::vector<double> x = test::random_vector(2 * kVertices, 7, -1.0, 1.0);

  Fixture() {
    const auto t = triangles();
    std::vector<double> weights(t.size() / 3);
    for (std::size_t f = 0; f < weights.size(); ++f) weights[f] = 0.5 + 0.1 * static_cast<double>(f % 5);
    problem.add_term<3>("wobbly", t, Wobbly{}, weights);
    problem.add_term<2>("stretch", edges(), Stretch{});
  }
  double value(const std::vector<double>& at) {
    return problem.value(View<const double>(at.data(), at.size(), Device::Cpu));
  }
  std::vector<double> gradient(const std::vector<double>& at) {
    std::vector<double> g(at.size());
    problem.gradient(View<const double>(at.data(), at.size(), Device::Cpu),
                     View<double>(g.data(), g.size(), Device::Cpu));
    return g;
  }
  HostCsr<double> hessian() { return to_host(problem.hessian(View<const double>(x.data(), x.size(), Device::Cpu))); }
};

View<const double> cview(const std::vector<double>& v) { return {v.data(), v.size(), Device::Cpu}; }
View<double> mview(std::vector<double>& v) { return {v.data(), v.size(), Device::Cpu}; }

}  // namespace

TEST(ElementProblem, GradientMatchesCentralDifferences) {
  Fixture f;
  const auto g = f.gradient(f.x);
  const auto fd = test::central_gradient([&](const std::vector<double>& at) { return f.value(at); }, f.x, 1e-6);
  EXPECT_LT(test::max_scaled_difference(g, fd), 1e-8);
  // The energy the gradient pass reports is the value pass's.
  std::vector<double> g2(f.x.size());
  EXPECT_DOUBLE_EQ(f.problem.gradient(cview(f.x), mview(g2)), f.value(f.x));
  EXPECT_NEAR(f.problem.term_energies()[0] + f.problem.term_energies()[1], f.value(f.x), 1e-12);
}

TEST(ElementProblem, HessianMatchesCentralDifferencesAndIsSymmetric) {
  Fixture f;
  const auto h = test::dense(f.hessian());
  const auto fd = test::central_jacobian([&](const std::vector<double>& at) { return f.gradient(at); }, f.x, 1e-5);
  EXPECT_LT(test::max_scaled_difference(h, fd), 1e-7);
  const std::size_t n = f.x.size();
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < r; ++c) EXPECT_EQ(h[r * n + c], h[c * n + r]) << r << ", " << c;
}

TEST(ElementProblem, PatternHoldsEveryDiagonalAndSortedColumns) {
  Fixture f;
  const auto h = f.hessian();
  const auto diag_index = f.problem.matrix().diagonal.to_vector();
  for (std::size_t r = 0; r < h.rows; ++r) {
    EXPECT_EQ(h.columns[diag_index[r]], r);
    for (std::uint32_t k = h.row_offsets[r] + 1; k < h.row_offsets[r + 1]; ++k)
      EXPECT_LT(h.columns[k - 1], h.columns[k]);
  }
}

TEST(ElementProblem, HvpAndDiagonalMatchTheAssembledHessian) {
  Fixture f;
  for (bool project : {false, true}) {
    f.problem.options().project_psd = project;
    const auto h = f.hessian();
    const auto v = test::random_vector(f.x.size(), 3);
    std::vector<double> hv(v.size()), d(v.size());
    f.problem.hvp(cview(f.x), cview(v), mview(hv));
    EXPECT_LT(test::max_scaled_difference(hv, h.multiply(v)), 1e-12) << "project " << project;
    f.problem.hessian_diagonal(cview(f.x), mview(d));
    for (std::size_t r = 0; r < d.size(); ++r) EXPECT_NEAR(d[r], h.at(r, r), 1e-12 * (1 + std::fabs(d[r])));
  }
}

TEST(ElementProblem, ProjectionMakesTheHessianPositiveSemidefinite) {
  Fixture f;
  const std::size_t n = f.x.size();
  EXPECT_FALSE(test::positive_semidefinite(test::dense(f.hessian()), n, 1e-9))
      << "the test energy should be non-convex";
  f.problem.options().project_psd = true;
  EXPECT_TRUE(test::positive_semidefinite(test::dense(f.hessian()), n, 1e-9));
  // Element level: every eigenvalue of a projected local Hessian is >= the requested minimum.
  const Vec<double, 6> x{{0.3, -0.7, 1.1, 0.4, -0.2, 0.9}};
  const double w = 1.5;
  const auto h = element_hessian(Wobbly{}, x, w, true, 0.25);
  Mat<double, 6, 6> m;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) m(i, j) = h.hess(i, j);
  Vec<double, 6> lambda;
  Mat<double, 6, 6> vectors;
  symmetric_eigen(m, lambda, vectors);
  for (int i = 0; i < 6; ++i) EXPECT_GE(lambda[i], 0.25 - 1e-12);
}

TEST(ElementProblem, AtomicAndOwnedAgreeAndOwnedIsBitwiseReproducible) {
  Fixture f;
  f.problem.options().accumulation = Accumulation::Atomic;
  const auto g_atomic = f.gradient(f.x);
  const auto h_atomic = f.hessian().values;
  f.problem.options().accumulation = Accumulation::Owned;
  const auto g_owned = f.gradient(f.x);
  const auto h_owned = f.hessian().values;
  EXPECT_LT(test::max_scaled_difference(g_owned, g_atomic), 1e-14);
  EXPECT_LT(test::max_scaled_difference(h_owned, h_atomic), 1e-14);
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  const auto g_again = f.gradient(f.x);
  const auto h_again = f.hessian().values;
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#endif
  EXPECT_EQ(0, std::memcmp(g_again.data(), g_owned.data(), g_owned.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(h_again.data(), h_owned.data(), h_owned.size() * sizeof(double)));
}

TEST(ElementProblem, FixedVariablesAreDecoupled) {
  Fixture f;
  f.problem.fix_vertices({2, 5});
  f.problem.fix_variables({20});  // vertex 10, first coordinate
  const std::vector<std::uint32_t> fixed = {4, 5, 10, 11, 20};
  const auto g = f.gradient(f.x);
  const auto h = f.hessian();
  const auto v = test::random_vector(f.x.size(), 9);
  std::vector<double> hv(v.size());
  f.problem.hvp(cview(f.x), cview(v), mview(hv));
  for (std::uint32_t i : fixed) {
    EXPECT_EQ(g[i], 0.0);
    EXPECT_EQ(hv[i], v[i]);
    for (std::size_t c = 0; c < f.x.size(); ++c) {
      EXPECT_EQ(h.at(i, c), c == i ? 1.0 : 0.0);
      EXPECT_EQ(h.at(c, i), c == i ? 1.0 : 0.0);
    }
  }
  EXPECT_LT(test::max_scaled_difference(hv, h.multiply(v)), 1e-12);
}

TEST(ElementProblem, SharedElementDataAndDataReplacement) {
  ElementProblem<double, 2> a(kVertices, Device::Cpu), b(kVertices, Device::Cpu);
  const auto t = triangles();
  a.add_term<3>("shared", t, Wobbly{}, std::vector<double>{0.7});
  const int term = b.add_term<3>("per element", t, Wobbly{}, std::vector<double>(t.size() / 3, 0.1));
  b.set_term_data(term, std::vector<double>(t.size() / 3, 0.7));
  const auto x = test::random_vector(2 * kVertices, 4);
  EXPECT_DOUBLE_EQ(a.value(cview(x)), b.value(cview(x)));
}

TEST(ElementProblem, RejectsBadInputWithClearErrors) {
  ElementProblem<double, 2> p(kVertices, Device::Cpu);
  EXPECT_THROW(p.add_term<2>("bad", {0, 1, 2}, Stretch{}), InvalidArgument);
  try {
    p.add_term<2>("far", {0, 1, 3, 99}, Stretch{});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("element 1 has vertex index 99"), std::string::npos) << e.what();
  }
  EXPECT_THROW(p.add_term<3>("wrong data count", triangles(), Wobbly{}, std::vector<double>(3, 1.0)), InvalidArgument);
  p.add_term<2>("ok", edges(), Stretch{});
  std::vector<double> x(2 * kVertices, 0.1), g(2 * kVertices);
  p.options().accumulation = Accumulation::SortReduce;
  EXPECT_THROW(p.gradient(cview(x), mview(g)), InvalidArgument);
  std::vector<double> short_x(3);
  EXPECT_THROW(p.value(cview(short_x)), InvalidArgument);
  // A CUDA problem needs a device, and terms whose energy nvcc compiled.
  auto host_energy_on_cuda = [] {
    ElementProblem<double, 2> gpu(kVertices, Device::Cuda);
    gpu.add_term<2>("host only", edges(), Stretch{});
  };
  EXPECT_THROW(host_energy_on_cuda(), Unsupported);
}
