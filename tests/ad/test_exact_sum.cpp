// The exact sum's arithmetic (exact_sum.h) and the names of the accumulation strategies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "test_support.h"
#include "tilegrad/ad/accumulation.h"
#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/core/error.h"

using namespace tilegrad;

TEST(AccumulationNames, ParseAndPrint) {
  for (Accumulation s : kAllAccumulations) EXPECT_EQ(parse_accumulation(to_string(s)), s);
  EXPECT_EQ(parse_accumulation("Sort_Reduce"), Accumulation::SortReduce);
  EXPECT_EQ(parse_accumulation("warp"), Accumulation::WarpAggregated);
  EXPECT_THROW(parse_accumulation("lock-free"), InvalidArgument);
  EXPECT_TRUE(is_deterministic(Accumulation::Owned));
  EXPECT_FALSE(is_deterministic(Accumulation::Atomic));
}

TEST(ExactSum, SingleValueShortcutHasTheGeneralPathsBits) {
  // exact::sum of one value takes a shortcut; it must equal the two-pass fixed-point arithmetic exactly.
  auto general = [](float x) {
    const unsigned flags = exact::nonfinite_flags(x);
    if (flags) return exact::nonfinite_result(flags);
    const int k = exact::scale_exponent(std::fabs(x), 1);
    return exact::dequantize(exact::quantize(x, k), k);
  };
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 3.0e38f, -1.17549435e-38f, 1.4e-45f, -2.5e-40f, 0.1f, -7.25f};
  const auto random = test::random_floats(10000, 77, -1e6f, 1e6f);
  values.insert(values.end(), random.begin(), random.end());
  for (float x : values) {
    const float fast = exact::sum([&](std::uint32_t) { return x; }, 1);
    const float slow = general(x);
    ASSERT_EQ(std::memcmp(&fast, &slow, sizeof(float)), 0) << x;
  }
  EXPECT_TRUE(std::isnan(exact::sum([](std::uint32_t) { return NAN; }, 1)));
}

TEST(ExactSum, FiniteMagnitudeIsIsfiniteOfEveryFloat) {
  // The first pass's one-comparison test on |x| must agree with std::isfinite(x) for every bit pattern class:
  // zeros, subnormals, the largest float, infinities and NaNs of both signs (every 4099th pattern, and the edges).
  std::vector<std::uint32_t> patterns = {0x00000000u, 0x80000000u, 0x00000001u, 0x7F7FFFFFu, 0xFF7FFFFFu,
                                         0x7F800000u, 0xFF800000u, 0x7F800001u, 0x7FC00000u, 0xFFFFFFFFu};
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4099) patterns.push_back(std::uint32_t(bits));
  for (std::uint32_t bits : patterns) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    ASSERT_EQ(exact::finite_magnitude(std::fabs(x)), bool(std::isfinite(x))) << std::hex << bits;
  }
}

TEST(ExactSum, ExponentAndHeadroomFromBitsMatchTheirDefinitions) {
  // binary_exponent reads frexpf's exponent from the float's bits, headroom_bits counts ceil(log2) with one
  // bit count: both must agree with the definitions everywhere, subnormals and zero included.
  std::vector<float> values = {0.0f, 1.4e-45f, 2.8e-45f, 1.0e-40f, 1.17549421e-38f, 1.17549435e-38f, 0.5f, 1.0f,
                               3.4028235e38f};
  for (std::uint32_t bits = 1; bits < 0x7F800000u; bits += 0x00012345u) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    values.push_back(x);
  }
  for (float x : values) {
    int e = 0;
    std::frexp(x, &e);
    ASSERT_EQ(exact::binary_exponent(x), e) << x;
  }
  auto by_loop = [](std::uint64_t count) {
    int h = 0;
    while (h < 32 && (std::uint64_t(1) << h) < count) ++h;
    return h;
  };
  for (std::uint64_t count = 1; count < 70000; ++count)
    ASSERT_EQ(exact::headroom_bits(std::uint32_t(count)), by_loop(count)) << count;
  for (std::uint64_t count : {0x7FFFFFFFull, 0x80000000ull, 0x80000001ull, 0xFFFFFFFFull})
    ASSERT_EQ(exact::headroom_bits(std::uint32_t(count)), by_loop(count)) << count;
}

TEST(ExactSum, PowerOfTwoScaleIsExactOverTheWholeRange) {
  // quantize/dequantize scale by pow2(k), assembled from exponent bits; it must be ldexp exactly for every
  // exponent the sums use (k in [-98, 210], and its negation).
  for (int k = -210; k <= 210; ++k) ASSERT_EQ(exact::pow2(k), std::ldexp(1.0, k)) << k;
}

TEST(ExactSum, FloatScaledQuantizeIsTheExactProductRounded) {
  // quantize scales in float (two products); the integer must be that of the exact x 2^k rounded to nearest,
  // ties to even, which the double product gives exactly. Every exponent the sums use, for values up to the
  // bound scale_exponent guarantees (|x| 2^k < 2^62): the largest, halves and ties, subnormals, and random
  // mantissas at every magnitude from far below one unit of the scale to the bound.
  for (int k = -98; k <= 210; ++k) {
    ASSERT_EQ(exact::pow2f(std::clamp(k, -126, 127)), std::ldexp(1.0f, std::clamp(k, -126, 127))) << k;
    std::vector<float> values = {0.0f, -0.0f, 1.4e-45f, -1.4e-45f, 1.17549435e-38f};
    for (float unit : {0.5f, 1.5f, 2.5f, -2.5f, 0.25f, 0.75f, 1.0f}) values.push_back(std::ldexp(unit, -k));
    const auto mantissas = test::random_floats(64, 1000 + k, 0.5f, 1.0f);
    for (int e = -160; e <= 62; e += 3)
      for (float m : mantissas) values.push_back(std::ldexp(e % 2 ? -m : m, e - k));
    for (float x : values) {
      if (!(std::fabs(double(x)) * std::ldexp(1.0, k) < std::ldexp(1.0, 62))) continue;
      const long long reference = std::llrint(double(x) * std::ldexp(1.0, k));
      ASSERT_EQ(exact::quantize(x, k), reference) << x << " at k = " << k;
    }
  }
}
