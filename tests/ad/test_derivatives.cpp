// Local derivative helpers (Jacobian, VJP, gradient + Hessian) and the PSD projection.
#include <gtest/gtest.h>

#include <random>

#include "tilegrad/ad/derivatives.h"
#include "tilegrad/ad/psd.h"

using namespace tilegrad;

namespace {

// R^3 -> R^2, written once for any scalar.
struct Warp {
  template <class S>
  Vec<S, 2> operator()(const Vec<S, 3>& x) const {
    return {{x[0] * exp(x[1]) - sin(x[2]), sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) / (scalar_of_t<S>(1) + x[2] * x[2])}};
  }
};
struct Energy {
  template <class S>
  S operator()(const Vec<S, 3>& x) const {
    return log(scalar_of_t<S>(1) + x[0] * x[0]) * x[1] + cos(x[1] * x[2]) + sqr(x[0] - x[2]) * x[1];
  }
};

}  // namespace

TEST(Derivatives, JacobianMatchesCentralDifferences) {
  const Vec3<double> x{{0.4, -0.3, 0.9}};
  const auto r = jacobian(Warp{}, x);
  const Vec2<double> y = Warp{}(x);
  for (int i = 0; i < 2; ++i) EXPECT_DOUBLE_EQ(r.value[i], y[i]);
  for (int j = 0; j < 3; ++j) {
    Vec3<double> p = x, m = x;
    p[j] += 1e-6;
    m[j] -= 1e-6;
    const Vec2<double> fd = (Warp{}(p) - Warp{}(m)) / 2e-6;
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(r.jacobian(i, j), fd[i], 1e-8 * (1 + std::fabs(fd[i])));
  }
}

TEST(Derivatives, VjpIsAdjointTimesJacobian) {
  const Vec3<double> x{{0.4, -0.3, 0.9}};
  const Vec2<double> w{{1.5, -0.25}};
  const auto r = vjp(Warp{}, x, w);
  const auto j = jacobian(Warp{}, x);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.vjp[k], w[0] * j.jacobian(0, k) + w[1] * j.jacobian(1, k), 1e-14);
}

TEST(Derivatives, GradientAndHessianMatchFiniteDifferences) {
  const Vec3<double> x{{0.4, -0.3, 0.9}};
  const auto h = value_gradient_hessian(Energy{}, x);
  const auto g = value_gradient(Energy{}, x);
  EXPECT_DOUBLE_EQ(h.value, Energy{}(x));
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(h.gradient[i], g.gradient[i], 1e-14);
    Vec3<double> p = x, m = x;
    p[i] += 1e-6;
    m[i] -= 1e-6;
    EXPECT_NEAR(g.gradient[i], (Energy{}(p) - Energy{}(m)) / 2e-6, 1e-8);
    const auto gp = value_gradient(Energy{}, p).gradient, gm = value_gradient(Energy{}, m).gradient;
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(h.hessian(j, i), (gp[j] - gm[j]) / 2e-6, 1e-7);
      EXPECT_EQ(h.hessian(i, j), h.hessian(j, i));
    }
  }
}

namespace {
template <int N>
Mat<double, N, N> random_symmetric(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  Mat<double, N, N> a;
  for (int i = 0; i < N; ++i)
    for (int j = i; j < N; ++j) a(i, j) = a(j, i) = n(rng);
  return a;
}
}  // namespace

TEST(Psd, EigenDecompositionReconstructs) {
  const auto a = random_symmetric<9>(3);
  Vec<double, 9> lambda;
  Mat<double, 9, 9> v;
  symmetric_eigen(a, lambda, v);
  // A v_k = lambda_k v_k and V^T V = I.
  for (int k = 0; k < 9; ++k) {
    const Vec<double, 9> vk = v.col(k);
    const Vec<double, 9> av = a * vk;
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(av[i], lambda[k] * vk[i], 1e-10);
    for (int l = 0; l < 9; ++l) EXPECT_NEAR(dot(vk, Vec<double, 9>(v.col(l))), k == l ? 1.0 : 0.0, 1e-12);
  }
}

TEST(Psd, ProjectionClampsNegativeEigenvaluesOnly) {
  auto a = random_symmetric<9>(11);
  Vec<double, 9> before;
  Mat<double, 9, 9> v;
  symmetric_eigen(a, before, v);
  int negatives = 0;
  for (int i = 0; i < 9; ++i) negatives += before[i] < 0;
  ASSERT_GT(negatives, 0) << "test matrix should be indefinite";
  EXPECT_TRUE(project_psd(a));
  Vec<double, 9> after;
  symmetric_eigen(a, after, v);
  std::sort(before.v, before.v + 9);
  std::sort(after.v, after.v + 9);
  for (int i = 0; i < 9; ++i) {
    EXPECT_GE(after[i], -1e-12);
    if (before[i] > 1e-9) {
      EXPECT_NEAR(after[i], before[i], 1e-10);  // positive spectrum kept
    }
  }
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) EXPECT_EQ(a(i, j), a(j, i));
  // A PSD matrix is left unchanged.
  auto b = a;
  for (int i = 0; i < 9; ++i) b(i, i) += 1e-3;
  const auto copy = b;
  EXPECT_FALSE(project_psd(b));
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) EXPECT_EQ(b(i, j), copy(i, j));
}

TEST(Psd, FloatProjectionIsPsd) {
  Mat<float, 3, 3> a{{{1.f, 2.f, 0.f}, {2.f, 1.f, 0.f}, {0.f, 0.f, -3.f}}};  // eigenvalues 3, -1, -3
  EXPECT_TRUE(project_psd(a, 1e-3f));
  Vec<float, 3> l;
  Mat<float, 3, 3> v;
  symmetric_eigen(a, l, v);
  for (int i = 0; i < 3; ++i) EXPECT_GE(l[i], 1e-3f - 1e-6f);  // float rounding at the scale of |A| = 3
  EXPECT_NEAR(a(0, 0), 1.5005f, 1e-5f);  // (3 + 1e-3) / 2 along (1, 1) / sqrt(2)
  EXPECT_NEAR(a(2, 2), 1e-3f, 1e-6f);
}
