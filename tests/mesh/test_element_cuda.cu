// The element-energy layer on CUDA with an energy compiled here by nvcc: every pass against the CPU reference,
// Atomic against Owned, and Owned (and the energy totals) bitwise reproducible run to run.
#include <gtest/gtest.h>

#include "mesh_test_util.h"
#include "test_support.h"
#include "tilegrad/ad/element_problem.h"

using namespace tilegrad;

namespace {

struct Curly {
  template <class S>
  TG_HD S operator()(const Vec<S, 9>& x, const float& w) const {
    using T = scalar_of_t<S>;
    return sin(x[0] * x[4]) * w + exp(T(0.2) * x[2]) * sqr(x[3] - x[7]) + log(T(1) + sqr(x[5])) * x[8] +
           atan2(x[1], T(2) + x[6] * x[6]);
  }
};

template <class T>
struct Results {
  double energy;
  std::vector<T> gradient, hessian, hvp, diagonal;
};

template <class T>
Results<T> evaluate(Device device, Accumulation accumulation, bool project, std::size_t vertices,
                    const std::vector<std::uint32_t>& triangles, const std::vector<T>& x, const std::vector<T>& v) {
  ElementProblem<T, 3> p(vertices, device);
  p.template add_term<3>("curly", triangles, Curly{}, std::vector<float>{0.75f});
  p.options().accumulation = accumulation;
  p.options().project_psd = project;
  auto dx = Buffer<T>::from(x, device), dv = Buffer<T>::from(v, device);
  Buffer<T> g(x.size(), device), hv(x.size(), device), d(x.size(), device);
  Results<T> r;
  r.energy = p.gradient(dx.cview(), g.view());
  r.hessian = p.hessian(dx.cview()).values.to_vector();
  p.hvp(dx.cview(), dv.cview(), hv.view());
  p.hessian_diagonal(dx.cview(), d.view());
  r.gradient = g.to_vector();
  r.hvp = hv.to_vector();
  r.diagonal = d.to_vector();
  return r;
}

}  // namespace

TEST(ElementCuda, EveryPassMatchesTheCpuReference) {
  TG_REQUIRE_CUDA();
  const std::size_t vertices = test::scaled(20000);
  std::vector<std::uint32_t> triangles;
  for (std::uint32_t f = 0; f < 2 * vertices; ++f)
    triangles.insert(triangles.end(),
                     {f % static_cast<std::uint32_t>(vertices), (7 * f + 3) % static_cast<std::uint32_t>(vertices),
                      (13 * f + 1) % static_cast<std::uint32_t>(vertices)});
  const auto x = test::random_vector(3 * vertices, 1), v = test::random_vector(3 * vertices, 2);
  for (bool project : {false, true}) {
    const auto cpu = evaluate<double>(Device::Cpu, Accumulation::Owned, project, vertices, triangles, x, v);
    for (Accumulation a : {Accumulation::Atomic, Accumulation::Owned}) {
      const auto gpu = evaluate<double>(Device::Cuda, a, project, vertices, triangles, x, v);
      EXPECT_NEAR(gpu.energy, cpu.energy, 1e-12 * std::fabs(cpu.energy));
      EXPECT_LT(test::max_scaled_difference(gpu.gradient, cpu.gradient), 1e-12) << to_string(a);
      EXPECT_LT(test::max_scaled_difference(gpu.hessian, cpu.hessian), 1e-11) << to_string(a);
      EXPECT_LT(test::max_scaled_difference(gpu.hvp, cpu.hvp), 1e-11) << to_string(a);
      EXPECT_LT(test::max_scaled_difference(gpu.diagonal, cpu.diagonal), 1e-11) << to_string(a);
    }
  }
}

TEST(ElementCuda, OwnedAssemblyIsBitwiseReproducible) {
  TG_REQUIRE_CUDA();
  const std::size_t vertices = test::scaled(50000);
  std::vector<std::uint32_t> triangles;
  // Few vertices per many elements: heavy contention on the owners.
  for (std::uint32_t f = 0; f < 4 * vertices; ++f)
    triangles.insert(triangles.end(), {f % 97u, (f * 31u + 5u) % static_cast<std::uint32_t>(vertices), (f * 7u) % 89u});
  std::vector<float> x(3 * vertices), v(3 * vertices);
  const auto xd = test::random_vector(3 * vertices, 3), vd = test::random_vector(3 * vertices, 4);
  std::copy(xd.begin(), xd.end(), x.begin());
  std::copy(vd.begin(), vd.end(), v.begin());
  const auto a = evaluate<float>(Device::Cuda, Accumulation::Owned, true, vertices, triangles, x, v);
  const auto b = evaluate<float>(Device::Cuda, Accumulation::Owned, true, vertices, triangles, x, v);
  EXPECT_EQ(a.energy, b.energy);
  EXPECT_TRUE(test::bitwise_equal(a.gradient, b.gradient));
  EXPECT_TRUE(test::bitwise_equal(a.hessian, b.hessian));
  EXPECT_TRUE(test::bitwise_equal(a.hvp, b.hvp));
  // Atomic adds the same float values in another order: equal up to rounding.
  const auto atomic = evaluate<float>(Device::Cuda, Accumulation::Atomic, true, vertices, triangles, x, v);
  auto widen = [](const std::vector<float>& f) { return std::vector<double>(f.begin(), f.end()); };
  EXPECT_LT(test::max_scaled_difference(widen(atomic.hessian), widen(a.hessian)), 1e-5);
  EXPECT_LT(test::max_scaled_difference(widen(atomic.gradient), widen(a.gradient)), 1e-5);
}
