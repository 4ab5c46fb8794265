// Dual and Hyper numbers: every elementary function against hand-derived first and second derivatives
// (float and double), identities, conventions at kinks, and finite differences on composed functions.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tilegrad/ad/functions.h"

using namespace tilegrad;

namespace {

// One elementary function: the AD version (instantiated for Dual and Hyper), and independent
// textbook derivatives in double.
struct Case {
  std::string name;
  std::function<Dual<double, 1>(Dual<double, 1>)> dual_d;
  std::function<Hyper<double, 1>(Hyper<double, 1>)> hyper_d;
  std::function<Dual<float, 1>(Dual<float, 1>)> dual_f;
  std::function<Hyper<float, 1>(Hyper<float, 1>)> hyper_f;
  std::function<double(double)> f, df, d2f;
  std::vector<double> points;
};

#define TG_CASE(NAME, EXPR, F, DF, D2F, ...)                                    \
  Case {                                                                         \
    NAME, [](Dual<double, 1> x) { return EXPR; },                                \
        [](Hyper<double, 1> x) { return EXPR; },                                 \
        [](Dual<float, 1> x) { return EXPR; },                                   \
        [](Hyper<float, 1> x) { return EXPR; },                                  \
        [](double x) { return F; }, [](double x) { (void)x; return DF; },       \
        [](double x) { (void)x; return D2F; }, { __VA_ARGS__ }                  \
  }

std::vector<Case> cases() {
  return {
      TG_CASE("sqrt", sqrt(x), std::sqrt(x), 1 / (2 * std::sqrt(x)), -1 / (4 * x * std::sqrt(x)), 0.3, 1.0, 7.5),
      TG_CASE("rsqrt", rsqrt(x), 1 / std::sqrt(x), -0.5 * std::pow(x, -1.5), 0.75 * std::pow(x, -2.5), 0.3, 2.0),
      TG_CASE("exp", exp(x), std::exp(x), std::exp(x), std::exp(x), -2.0, 0.0, 1.7),
      TG_CASE("log", log(x), std::log(x), 1 / x, -1 / (x * x), 0.2, 1.0, 9.0),
      TG_CASE("sin", sin(x), std::sin(x), std::cos(x), -std::sin(x), -2.0, 0.1, 3.0),
      TG_CASE("cos", cos(x), std::cos(x), -std::sin(x), -std::cos(x), -2.0, 0.1, 3.0),
      TG_CASE("tan", tan(x), std::tan(x), 1 / (std::cos(x) * std::cos(x)),
              2 * std::sin(x) / std::pow(std::cos(x), 3), -1.0, 0.2, 1.2),
      TG_CASE("asin", asin(x), std::asin(x), 1 / std::sqrt(1 - x * x), x / std::pow(1 - x * x, 1.5), -0.7, 0.0, 0.5),
      TG_CASE("acos", acos(x), std::acos(x), -1 / std::sqrt(1 - x * x), -x / std::pow(1 - x * x, 1.5), -0.7, 0.3),
      TG_CASE("atan", atan(x), std::atan(x), 1 / (1 + x * x), -2 * x / std::pow(1 + x * x, 2), -3.0, 0.5, 2.0),
      TG_CASE("tanh", tanh(x), std::tanh(x), 1 / std::pow(std::cosh(x), 2),
              -2 * std::tanh(x) / std::pow(std::cosh(x), 2), -1.5, 0.0, 0.8),
      TG_CASE("abs", abs(x), std::fabs(x), x > 0 ? 1.0 : -1.0, 0.0, -2.5, 0.7),
      TG_CASE("sigmoid", sigmoid(x), 1 / (1 + std::exp(-x)), std::exp(-x) / std::pow(1 + std::exp(-x), 2),
              std::exp(-x) * (std::exp(-x) - 1) / std::pow(1 + std::exp(-x), 3), -3.0, 0.0, 2.0),
      TG_CASE("pow_const", pow(x, decltype(x.v)(2.5)), std::pow(x, 2.5), 2.5 * std::pow(x, 1.5),
              3.75 * std::pow(x, 0.5), 0.4, 3.0),
      TG_CASE("reciprocal", decltype(x.v)(1) / x, 1 / x, -1 / (x * x), 2 / (x * x * x), -2.0, 0.5, 4.0),
      TG_CASE("square", x * x, x * x, 2 * x, 2.0, -1.5, 0.0, 2.0),
      TG_CASE("quotient_self", (x + decltype(x.v)(1)) / (x * x + decltype(x.v)(2)), (x + 1) / (x * x + 2),
              (x * x + 2 - 2 * x * (x + 1)) / std::pow(x * x + 2, 2),
              (2 * x * x * x + 6 * x * x - 12 * x - 4) / std::pow(x * x + 2, 3), -1.0, 0.3, 2.0),
  };
}

double rel(double a, double b) { return std::fabs(a - b) / std::fmax(std::fabs(b), 1e-3); }

}  // namespace

TEST(Dual, ElementaryFunctionsMatchHandDerivedDerivativesDouble) {
  for (const Case& c : cases()) {
    for (double x : c.points) {
      SCOPED_TRACE(c.name + " at " + std::to_string(x));
      const auto d = c.dual_d(Dual<double, 1>::variable(x, 0));
      EXPECT_LT(rel(d.v, c.f(x)), 1e-14);
      EXPECT_LT(rel(d.d[0], c.df(x)), 1e-12);
      const auto h = c.hyper_d(Hyper<double, 1>::variable(x, 0));
      EXPECT_LT(rel(h.v, c.f(x)), 1e-14);
      EXPECT_LT(rel(h.g[0], c.df(x)), 1e-12);
      EXPECT_LT(rel(h.h[0], c.d2f(x)), 1e-11);
    }
  }
}

TEST(Dual, ElementaryFunctionsMatchHandDerivedDerivativesFloat) {
  for (const Case& c : cases()) {
    for (double x : c.points) {
      SCOPED_TRACE(c.name + " at " + std::to_string(x));
      const float xf = static_cast<float>(x);
      const auto d = c.dual_f(Dual<float, 1>::variable(xf, 0));
      EXPECT_LT(rel(d.v, c.f(xf)), 2e-6);
      EXPECT_LT(rel(d.d[0], c.df(xf)), 2e-5);
      const auto h = c.hyper_f(Hyper<float, 1>::variable(xf, 0));
      EXPECT_LT(rel(h.g[0], c.df(xf)), 2e-5);
      EXPECT_LT(rel(h.h[0], c.d2f(xf)), 5e-5);
    }
  }
}

template <class S>
S composed(const S& a, const S& b, const S& c) {
  using T = scalar_of_t<S>;
  return exp(sin(a) * b) / sqrt(T(1) + c * c) + atan2(a, b) + pow(c + T(2), a) + log(T(1) + b * b) +
         tanh(a * c) * sigmoid(b - c) + abs(a - T(3)) + rsqrt(T(2) + cos(b)) + asin(c / T(4)) + acos(a / T(5)) +
         atan(b * c) + max(a, b) * min(b, c) + clamp(a * b, T(-10), T(10)) + tan(c / T(3)) + sqr(a * c);
}

TEST(Dual, ComposedGradientMatchesCentralDifferences) {
  const double x[3] = {0.7, -0.4, 1.3};
  Dual<double, 3> a = Dual<double, 3>::variable(x[0], 0), b = Dual<double, 3>::variable(x[1], 1),
                  c = Dual<double, 3>::variable(x[2], 2);
  const auto y = composed(a, b, c);
  EXPECT_DOUBLE_EQ(y.v, composed(x[0], x[1], x[2]));
  for (int i = 0; i < 3; ++i) {
    double p[3] = {x[0], x[1], x[2]}, m[3] = {x[0], x[1], x[2]};
    const double h = 1e-6;
    p[i] += h;
    m[i] -= h;
    const double fd = (composed(p[0], p[1], p[2]) - composed(m[0], m[1], m[2])) / (2 * h);
    EXPECT_LT(rel(y.d[i], fd), 1e-8) << "partial " << i;
  }
}

TEST(Hyper, ComposedHessianMatchesNestedDualsAndFiniteDifferences) {
  const double x[3] = {0.7, -0.4, 1.3};
  using H = Hyper<double, 3>;
  const H y = composed(H::variable(x[0], 0), H::variable(x[1], 1), H::variable(x[2], 2));
  // Forward-over-forward: the Jacobian of the dual gradient, an independent second-order path.
  using DD = Dual<Dual<double, 3>, 3>;
  auto seed = [&](int i) {
    DD r(Dual<double, 3>::variable(x[i], i));
    r.d[i] = Dual<double, 3>(1.0);
    return r;
  };
  const DD z = composed(seed(0), seed(1), seed(2));
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(rel(y.g[i], z.d[i].v), 1e-13);
    for (int j = 0; j < 3; ++j) {
      EXPECT_LT(rel(y.hess(i, j), z.d[i].d[j]), 1e-11) << i << "," << j;
      EXPECT_LT(rel(z.d[i].d[j], z.d[j].d[i]), 1e-11) << "nested Hessian not symmetric at " << i << "," << j;
    }
  }
  // Finite differences of the exact gradient.
  for (int j = 0; j < 3; ++j) {
    double p[3] = {x[0], x[1], x[2]}, m[3] = {x[0], x[1], x[2]};
    const double h = 1e-5;
    p[j] += h;
    m[j] -= h;
    using D = Dual<double, 3>;
    const D yp = composed(D::variable(p[0], 0), D::variable(p[1], 1), D::variable(p[2], 2));
    const D ym = composed(D::variable(m[0], 0), D::variable(m[1], 1), D::variable(m[2], 2));
    for (int i = 0; i < 3; ++i) EXPECT_LT(rel(y.hess(i, j), (yp.d[i] - ym.d[i]) / (2 * h)), 1e-7);
  }
}

template <class S>
void expect_same_number(const S& a, const S& b, double tol);
template <class T, int N>
void expect_same_number(const Hyper<T, N>& a, const Hyper<T, N>& b, double tol) {
  EXPECT_NEAR(a.v, b.v, tol * std::fabs(double(b.v)) + tol);
  for (int i = 0; i < N; ++i) EXPECT_NEAR(a.g[i], b.g[i], tol * std::fabs(double(b.g[i])) + tol);
  for (int k = 0; k < Hyper<T, N>::kPacked; ++k) EXPECT_NEAR(a.h[k], b.h[k], tol * std::fabs(double(b.h[k])) + tol);
}

template <class T>
class HyperIdentities : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HyperIdentities, Scalars);

TYPED_TEST(HyperIdentities, SquareEqualsPowEqualsProduct) {
  using T = TypeParam;
  using H = Hyper<T, 3>;
  const double tol = sizeof(T) == 4 ? 2e-5 : 1e-13;
  const H a = H::variable(T(0.8), 0), b = H::variable(T(-1.2), 1), c = H::variable(T(0.5), 2);
  const H u = sin(a * b) + c * exp(b) + T(2);  // a non-trivial inner expression (positive)
  expect_same_number(sqr(u), u * u, tol);
  expect_same_number(pow(u, T(2)), u * u, tol);
  expect_same_number(exp(log(u)), u, tol);
  expect_same_number(sqrt(u) * sqrt(u), u, tol);
  expect_same_number(rsqrt(u) * sqrt(u), H(T(1)), tol);
  expect_same_number(u / u, H(T(1)), tol);
  expect_same_number(pow(u, H(T(2))), u * u, tol);  // the binary pow path
}

TEST(Conventions, KinksFollowTheDocumentedChoice) {
  using D = Dual<double, 1>;
  EXPECT_EQ(abs(D::variable(0.0, 0)).d[0], 0.0);
  EXPECT_EQ(abs(D::variable(-0.0, 0)).d[0], 0.0);
  // clamp: derivative 1 on [lo, hi] including the edges, 0 outside.
  EXPECT_EQ(clamp(D::variable(1.0, 0), 1.0, 2.0).d[0], 1.0);
  EXPECT_EQ(clamp(D::variable(2.0, 0), 1.0, 2.0).d[0], 1.0);
  EXPECT_EQ(clamp(D::variable(2.5, 0), 1.0, 2.0).d[0], 0.0);
  EXPECT_EQ(clamp(D::variable(0.5, 0), 1.0, 2.0).v, 1.0);
  // min/max: ties return the first argument (with its derivatives).
  D a = D::variable(1.0, 0), b(1.0);
  EXPECT_EQ(min(a, b).d[0], 1.0);
  EXPECT_EQ(max(a, b).d[0], 1.0);
  EXPECT_EQ(min(b, a).d[0], 0.0);
}

TEST(Dual, ComparisonsUseTheValue) {
  using D = Dual<float, 2>;
  D a = D::variable(1.0f, 0), b = D::variable(2.0f, 1);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(b > 1.5f);
  EXPECT_TRUE(0.5f < a);
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(is_finite(a));
  EXPECT_FALSE(is_finite(sqrt(D(-1.0f))));
}
