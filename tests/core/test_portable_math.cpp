// The portable float exp and log (core/portable_math.h) against float64: within 1 ulp (at most 0.88 and 0.81
// over these arguments), with the IEEE special cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "portable_math_cases.h"
#include "tilegrad/core/portable_math.h"

using namespace tilegrad;

namespace {

// |got - exact| in units of the float spacing at the exact value (subnormal spacing below the normal range).
double ulps(float got, double exact) {
  const double spacing = std::fmax(std::ldexp(1.0, std::ilogb(std::fmax(std::fabs(exact), 1e-300)) - 23),
                                   double(std::numeric_limits<float>::denorm_min()));
  return std::fabs(double(got) - exact) / spacing;
}

}  // namespace

TEST(PortableMath, ExpIsWithinOneUlp) {
  double worst = 0;
  for (float x : test::exp_arguments()) {
    const float got = portable::exp(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(got));
      continue;
    }
    const double exact = std::exp(double(x));
    if (exact > double(std::numeric_limits<float>::max())) {
      EXPECT_EQ(got, std::numeric_limits<float>::infinity()) << x;
      continue;
    }
    const double e = ulps(got, exact);
    worst = std::fmax(worst, e);
    ASSERT_LE(e, 1.0) << "exp(" << x << ") = " << got << ", exact " << exact;
  }
  EXPECT_EQ(portable::exp(0.0f), 1.0f);
  EXPECT_EQ(portable::exp(-std::numeric_limits<float>::infinity()), 0.0f);
  RecordProperty("worst_ulps", std::to_string(worst));
}

TEST(PortableMath, LogIsWithinOneUlp) {
  double worst = 0;
  for (float x : test::log_arguments()) {
    const float got = portable::log(x);
    if (std::isnan(x) || x < 0) {
      EXPECT_TRUE(std::isnan(got)) << x;
      continue;
    }
    if (x == 0) {
      EXPECT_EQ(got, -std::numeric_limits<float>::infinity());
      continue;
    }
    if (std::isinf(x)) {
      EXPECT_EQ(got, x);
      continue;
    }
    const double e = ulps(got, std::log(double(x)));
    worst = std::fmax(worst, e);
    ASSERT_LE(e, 1.0) << "log(" << x << ") = " << got << ", exact " << std::log(double(x));
  }
  EXPECT_EQ(portable::log(1.0f), 0.0f);
  RecordProperty("worst_ulps", std::to_string(worst));
}
