// Dual derivatives of a small function against central finite differences in double.
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "tilegrad/ad/derivatives.h"

namespace tilegrad::test {

// Every Jacobian entry of f at x vs fourth-order central differences with step h * max(1e-2, |x_j|):
// |ad - fd| <= rel * scale where scale is the largest |entry| of the row (tiny entries are judged against it).
template <class F, int N>
void expect_jacobian_matches_fd(F f, const Vec<double, N>& x, double rel, double h = 1e-4) {
  const auto r = jacobian(f, x);
  constexpr int M = decltype(r.value)::size();
  Mat<double, M, N> fd;
  for (int j = 0; j < N; ++j) {
    const double step = h * std::fmax(1e-2, std::fabs(x[j]));
    auto at = [&](double k) {
      Vec<double, N> p = x;
      p[j] += k * step;
      return f(p);
    };
    const auto p1 = at(1), m1 = at(-1), p2 = at(2), m2 = at(-2);
    for (int i = 0; i < M; ++i) fd(i, j) = (8 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12 * step);
  }
  for (int i = 0; i < M; ++i) {
    double scale = 0;
    for (int j = 0; j < N; ++j) scale = std::fmax(scale, std::fabs(fd(i, j)));
    for (int j = 0; j < N; ++j)
      EXPECT_NEAR(r.jacobian(i, j), fd(i, j), rel * std::fmax(scale, 1e-12)) << "output " << i << ", input " << j;
  }
}

}  // namespace tilegrad::test
