// Fused Adam against the textbook update in float64, per-group and head/tail learning rates, validation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "test_support.h"
#include "tilegrad/training/adam.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {

struct Reference {
  std::vector<double> p, m, v;
  void step(const std::vector<float>& g, const std::vector<double>& lr, int t, const AdamSettings& s) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      m[i] = s.beta1 * m[i] + (1 - s.beta1) * g[i];
      v[i] = s.beta2 * v[i] + (1 - s.beta2) * double(g[i]) * g[i];
      const double mhat = m[i] / (1 - std::pow(double(s.beta1), t));
      const double vhat = v[i] / (1 - std::pow(double(s.beta2), t));
      p[i] -= lr[i] * mhat / (std::sqrt(vhat) + s.eps);
    }
  }
};

}  // namespace

TEST(Adam, StepsMatchTheFormulaPerGroupAndBand) {
  // Group 0: 5 plain elements; group 1: [2 Gaussians, K = 4, 3] SH with DC (head 3 of period 12) at its own rate.
  const std::size_t n0 = 5, n1 = 24;
  std::vector<float> p0 = test::random_floats(n0, 1), p1 = test::random_floats(n1, 2);
  std::vector<float> m0(n0, 0), v0(n0, 0), m1(n1, 0), v1(n1, 0);
  AdamSettings s;
  s.eps = 1e-8f;
  Reference r0{std::vector<double>(p0.begin(), p0.end()), std::vector<double>(n0), std::vector<double>(n0)};
  Reference r1{std::vector<double>(p1.begin(), p1.end()), std::vector<double>(n1), std::vector<double>(n1)};
  std::vector<double> lr0(n0, 0.01), lr1(n1);
  for (std::size_t i = 0; i < n1; ++i) lr1[i] = (i % 12) < 3 ? 0.05 : 0.002;
  for (int t = 1; t <= 4; ++t) {
    const std::vector<float> g0 = test::random_floats(n0, 10 + t), g1 = test::random_floats(n1, 20 + t, -3.0f, 3.0f);
    std::vector<AdamGroup> groups(2);
    groups[0] = {View<float>(p0.data(), n0, Device::Cpu),
                 View<const float>(g0.data(), n0, Device::Cpu),
                 View<float>(m0.data(), n0, Device::Cpu),
                 View<float>(v0.data(), n0, Device::Cpu),
                 0.01f,
                 0.01f,
                 1,
                 1};
    groups[1] = {View<float>(p1.data(), n1, Device::Cpu),
                 View<const float>(g1.data(), n1, Device::Cpu),
                 View<float>(m1.data(), n1, Device::Cpu),
                 View<float>(v1.data(), n1, Device::Cpu),
                 0.05f,
                 0.002f,
                 12,
                 3};
    adam_step(Device::Cpu, groups, t, s);
    r0.step(g0, lr0, t, s);
    r1.step(g1, lr1, t, s);
  }
  EXPECT_LT(test::max_relative_error(p0, r0.p, 1e-3), 1e-5);
  EXPECT_LT(test::max_relative_error(p1, r1.p, 1e-3), 1e-5);
  EXPECT_LT(test::max_relative_error(m1, r1.m, 1e-3), 1e-5);
  EXPECT_LT(test::max_relative_error(v1, r1.v, 1e-6), 1e-5);
}

TEST(Adam, FirstStepMovesByTheLearningRate) {
  // With m and v starting at zero, the bias-corrected first step is lr * sign(g) (up to eps).
  std::vector<float> p = {1.0f, -2.0f, 0.5f}, g = {3.0f, -0.001f, 40.0f}, m(3, 0), v(3, 0);
  AdamGroup a{View<float>(p.data(), 3, Device::Cpu),
              View<const float>(g.data(), 3, Device::Cpu),
              View<float>(m.data(), 3, Device::Cpu),
              View<float>(v.data(), 3, Device::Cpu),
              0.1f,
              0.1f,
              1,
              1};
  adam_step(Device::Cpu, {a}, 1, AdamSettings{});
  EXPECT_NEAR(p[0], 0.9f, 1e-6);
  EXPECT_NEAR(p[1], -1.9f, 1e-6);
  EXPECT_NEAR(p[2], 0.4f, 1e-6);
}

TEST(Adam, RejectsBadArguments) {
  std::vector<float> p(4), g(3), m(4), v(4);
  AdamGroup a{View<float>(p.data(), 4, Device::Cpu),
              View<const float>(g.data(), 3, Device::Cpu),
              View<float>(m.data(), 4, Device::Cpu),
              View<float>(v.data(), 4, Device::Cpu),
              0.1f,
              0.1f,
              1,
              1};
  EXPECT_THROW(adam_step(Device::Cpu, {a}, 1, {}), InvalidArgument);  // gradient size
  a.grad = View<const float>(p.data(), 4, Device::Cpu);
  EXPECT_THROW(adam_step(Device::Cpu, {a}, 0, {}), InvalidArgument);  // steps count from 1
  a.head = 2;
  a.period = 1;
  EXPECT_THROW(adam_step(Device::Cpu, {a}, 1, {}), InvalidArgument);  // head > period
}
