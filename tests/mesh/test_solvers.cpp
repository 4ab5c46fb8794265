// Solvers on small element problems: Newton (Cholesky, PCG assembled and matrix-free), gradient descent and
// L-BFGS reach the same minimum; PCG and the sparse Cholesky solve SPD systems; the line search keeps +inf
// (inadmissible) points out.
#include <gtest/gtest.h>

#include <cmath>

#include "mesh_test_util.h"
#include "tilegrad/ad/element_problem.h"
#include "tilegrad/ad/solvers.h"
#include "tilegrad/ad/sparse_cholesky.h"
#include "tilegrad/core/error.h"

using namespace tilegrad;

namespace {

// A smooth, strictly convex chain: sum over edges of cosh-like springs plus a pull to targets.
struct Link {
  template <class S>
  S operator()(const Vec<S, 2>& x, const NoElementData&) const {
    using T = scalar_of_t<S>;
    const S d = x[0] - x[1] - T(0.25);
    return sqrt(T(1) + d * d) + d * d * T(0.5);
  }
};
struct Pull {
  template <class S>
  S operator()(const Vec<S, 1>& x, const double& target) const {
    return sqr(x[0] - target) * scalar_of_t<S>(0.1);
  }
};
// -log(x) barrier: +inf for x <= 0, so the minimiser must keep every variable positive.
struct LogBarrier {
  template <class S>
  S operator()(const Vec<S, 1>& x, const NoElementData&) const {
    using T = scalar_of_t<S>;
    if (!(x[0] > T(0))) return S(T(INFINITY));
    return x[0] * T(3) - log(x[0]);
  }
};

constexpr std::size_t kN = 40;

std::unique_ptr<ElementProblem<double, 1>> chain() {
  auto p = std::make_unique<ElementProblem<double, 1>>(kN, Device::Cpu);
  std::vector<std::uint32_t> links, all;
  for (std::uint32_t i = 0; i + 1 < kN; ++i) links.insert(links.end(), {i, i + 1});
  for (std::uint32_t i = 0; i < kN; ++i) all.push_back(i);
  p->add_term<2>("links", links, Link{});
  std::vector<double> targets(kN);
  for (std::size_t i = 0; i < kN; ++i) targets[i] = std::sin(0.3 * static_cast<double>(i));
  p->add_term<1>("pull", all, Pull{}, targets);
  return p;
}

std::vector<double> solve_with(const std::function<SolveResult(Objective<double>&, View<double>)>& solver,
                               SolveResult* out = nullptr) {
  auto p = chain();
  std::vector<double> x(kN, 0.0);
  const SolveResult r = solver(*p, View<double>(x.data(), x.size(), Device::Cpu));
  EXPECT_TRUE(r.converged) << r.reason;
  for (std::size_t k = 1; k < r.log.size(); ++k) EXPECT_LE(r.log[k].energy, r.log[k - 1].energy);
  if (out) *out = r;
  return x;
}

}  // namespace

TEST(Solvers, AllMinimisersReachTheSameMinimum) {
  NewtonOptions newton_options;
  newton_options.stop.gradient_tolerance = 1e-10;
  SolveResult newton_result;
  const auto x_newton = solve_with(
      [&](Objective<double>& f, View<double> x) { return newton(f, x, newton_options); }, &newton_result);
  EXPECT_LE(newton_result.iterations, 10);

  NewtonOptions free_options = newton_options;
  free_options.matrix_free = true;
  const auto x_free = solve_with([&](Objective<double>& f, View<double> x) { return newton(f, x, free_options); });

  NewtonOptions pcg_options = newton_options;
  pcg_options.linear_solver = NewtonLinearSolver::Pcg;
  const auto x_pcg = solve_with([&](Objective<double>& f, View<double> x) { return newton(f, x, pcg_options); });
  EXPECT_LT(test::max_scaled_difference(x_pcg, x_newton), 1e-8);
  if (SparseCholesky<double>::available()) {
    EXPECT_TRUE(newton_result.log[1].direct);
    // Exact Newton steps on a strictly convex energy: quadratic convergence.
    EXPECT_LE(newton_result.iterations, 6);
  }

  LbfgsOptions lbfgs_options;
  lbfgs_options.stop.gradient_tolerance = 1e-9;
  lbfgs_options.stop.energy_tolerance = 0;
  lbfgs_options.stop.max_iterations = 500;
  const auto x_lbfgs = solve_with([&](Objective<double>& f, View<double> x) { return lbfgs(f, x, lbfgs_options); });

  GradientDescentOptions gd_options;
  gd_options.stop.gradient_tolerance = 1e-7;
  gd_options.stop.energy_tolerance = 0;
  gd_options.stop.max_iterations = 20000;
  const auto x_gd =
      solve_with([&](Objective<double>& f, View<double> x) { return gradient_descent(f, x, gd_options); });

  EXPECT_LT(test::max_scaled_difference(x_free, x_newton), 1e-8);
  EXPECT_LT(test::max_scaled_difference(x_lbfgs, x_newton), 1e-7);
  EXPECT_LT(test::max_scaled_difference(x_gd, x_newton), 1e-5);
}

TEST(Solvers, IterationLogAndCallback) {
  auto p = chain();
  std::vector<double> x(kN, 0.0);
  int calls = 0;
  NewtonOptions o;
  o.on_iteration = [&](const IterationLog& log) {
    EXPECT_EQ(log.iteration, calls);
    ++calls;
  };
  const SolveResult r = newton(*p, View<double>(x.data(), x.size(), Device::Cpu), o);
  EXPECT_EQ(calls, static_cast<int>(r.log.size()));
  EXPECT_EQ(r.log.front().step, 0.0);
  EXPECT_GT(r.log.back().iteration, 0);
  EXPECT_EQ(r.log[1].direct, SparseCholesky<double>::available());
  EXPECT_EQ(r.log[1].inner_iterations > 0, !r.log[1].direct);
}

TEST(SparseCholesky, SolvesReusesItsAnalysisAndRefusesIndefiniteMatrices) {
  if (!SparseCholesky<double>::available()) {
    SparseCholesky<double> c;
    auto p = chain();
    std::vector<double> x(kN, 0.2);
    EXPECT_THROW(c.factor(p->hessian(View<const double>(x.data(), kN, Device::Cpu))), Unsupported);
    GTEST_SKIP() << "this build has no CHOLMOD";
  }
  auto p = chain();
  std::vector<double> x(kN, 0.2);
  const CsrMatrix<double>& h = p->hessian(View<const double>(x.data(), kN, Device::Cpu));
  const HostCsr<double> host = to_host(h);
  SparseCholesky<double> c;
  const std::vector<double> b = test::random_vector(kN, 3);
  std::vector<double> sol(kN);
  for (double shift : {0.0, 0.5}) {
    ASSERT_TRUE(c.factor(h, shift));
    c.solve(View<const double>(b.data(), kN, Device::Cpu), View<double>(sol.data(), kN, Device::Cpu));
    std::vector<double> r = host.multiply(sol);
    for (std::size_t i = 0; i < kN; ++i) EXPECT_NEAR(r[i] + shift * sol[i], b[i], 1e-10 * (1 + std::fabs(b[i])));
  }
  EXPECT_EQ(c.stats().analyses, 1);  // the same pattern: analysed once
  EXPECT_EQ(c.stats().factorizations, 2);
  EXPECT_GE(c.stats().factor_entries, kN);
  // H - 100 I is indefinite: refused, and solve() is unusable until a factorisation succeeds.
  EXPECT_FALSE(c.factor(h, -100.0));
  EXPECT_THROW(c.solve(View<const double>(b.data(), kN, Device::Cpu), View<double>(sol.data(), kN, Device::Cpu)),
               InvalidArgument);
  // Float matrices are factored in double.
  ElementProblem<float, 1> pf(kN, Device::Cpu);
  std::vector<std::uint32_t> links;
  for (std::uint32_t i = 0; i + 1 < kN; ++i) links.insert(links.end(), {i, i + 1});
  pf.add_term<2>("links", links, Link{});
  std::vector<float> xf(kN, 0.2f), bf(b.begin(), b.end()), sf(kN);
  SparseCholesky<float> cf;
  ASSERT_TRUE(cf.factor(pf.hessian(View<const float>(xf.data(), kN, Device::Cpu)), 1.0));
  cf.solve(View<const float>(bf.data(), kN, Device::Cpu), View<float>(sf.data(), kN, Device::Cpu));
  const HostCsr<float> hf = to_host(pf.hessian(View<const float>(xf.data(), kN, Device::Cpu)));
  const std::vector<float> rf = hf.multiply(sf);
  for (std::size_t i = 0; i < kN; ++i) EXPECT_NEAR(rf[i] + sf[i], bf[i], 1e-4f * (1 + std::fabs(bf[i])));
}

TEST(Solvers, MatrixFreePcgWithTheLaggedCholeskyNeedsFewerIterations) {
  if (!SparseCholesky<double>::available()) GTEST_SKIP() << "this build has no CHOLMOD";
  auto run = [](MatrixFreePreconditioner pc, SolveResult& r) {
    NewtonOptions o;
    o.matrix_free = true;
    o.matrix_free_preconditioner = pc;
    o.adaptive_tolerance = false;
    o.pcg.relative_tolerance = 1e-10;
    o.stop.gradient_tolerance = 1e-10;
    return solve_with([&](Objective<double>& f, View<double> x) { return newton(f, x, o); }, &r);
  };
  SolveResult jacobi, lagged;
  const auto xj = run(MatrixFreePreconditioner::Jacobi, jacobi);
  const auto xl = run(MatrixFreePreconditioner::LaggedCholesky, lagged);
  EXPECT_LT(test::max_scaled_difference(xl, xj), 1e-8);
  int inner_j = 0, inner_l = 0;
  for (const auto& l : jacobi.log) inner_j += l.inner_iterations;
  for (const auto& l : lagged.log) inner_l += l.inner_iterations;
  // The factor of an earlier Hessian is nearly the inverse: a few PCG iterations per step instead of dozens.
  EXPECT_LT(inner_l * 3, inner_j) << "jacobi " << inner_j << ", lagged Cholesky " << inner_l;
}

TEST(Solvers, NewtonRefusesTheDirectSolverWithoutAMatrix) {
  auto p = chain();
  std::vector<double> x(kN, 0.0);
  NewtonOptions o;
  o.matrix_free = true;
  o.linear_solver = NewtonLinearSolver::Cholesky;
  EXPECT_THROW(newton(*p, View<double>(x.data(), kN, Device::Cpu), o), InvalidArgument);
}

TEST(Solvers, PcgSolvesASymmetricPositiveDefiniteSystem) {
  auto p = chain();
  std::vector<double> x(kN, 0.2);
  const HostCsr<double> h = to_host(p->hessian(View<const double>(x.data(), x.size(), Device::Cpu)));
  std::vector<double> inv_diag(kN), b = test::random_vector(kN, 1), sol(kN);
  for (std::size_t i = 0; i < kN; ++i) inv_diag[i] = 1.0 / h.at(i, i);
  PcgOptions o;
  o.relative_tolerance = 1e-12;
  const PcgResult r = pcg<double>(
      [&](View<const double> v, View<double> out) {
        const auto y = h.multiply(to_vector(v));
        std::copy(y.begin(), y.end(), out.data());
      },
      View<const double>(inv_diag.data(), kN, Device::Cpu), View<const double>(b.data(), kN, Device::Cpu),
      View<double>(sol.data(), kN, Device::Cpu), o);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(test::max_scaled_difference(h.multiply(sol), b), 1e-10);
}

TEST(Solvers, LineSearchRejectsInadmissiblePoints) {
  // Minimum at x = 1/3 per variable; from x = 5 the full Newton step overshoots below 0 (energy +inf).
  ElementProblem<double, 1> p(4, Device::Cpu);
  p.add_term<1>("barrier", {0, 1, 2, 3}, LogBarrier{});
  std::vector<double> x(4, 5.0);
  NewtonOptions o;
  o.stop.gradient_tolerance = 1e-10;
  int backtracked = 0;
  o.on_iteration = [&](const IterationLog& log) {
    if (log.line_search_trials > 1) ++backtracked;
  };
  const SolveResult r = newton(p, View<double>(x.data(), x.size(), Device::Cpu), o);
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_GT(backtracked, 0);
  for (double v : x) EXPECT_NEAR(v, 1.0 / 3.0, 1e-8);
}
