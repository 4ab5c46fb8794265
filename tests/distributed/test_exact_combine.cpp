// The exact combination over ranks: one rank is the identity; several ranks give the project's exact sum of the
// ranks' values (ad/exact_sum.h) whatever rank holds which value; means; non-finite values; many segments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "test_support.h"
#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/distributed/exact_combine.h"
#include "tilegrad/distributed/rank_threads.h"

using namespace tilegrad;
using namespace tilegrad::distributed;

namespace {

// Values of many magnitudes and signs, subnormals and zeros among them.
std::vector<float> mixed_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 9) {
      case 0:
        v[i] = 0.0f;
        break;
      case 1:
        v[i] = 1e-41f * float(1 + i % 5);  // subnormal
        break;
      default:
        v[i] = std::ldexp(mantissa(rng), exponent(rng));
    }
  }
  return v;
}

// values[r] is rank r's array; returns every rank's result.
std::vector<std::vector<float>> combine(const std::vector<std::vector<float>>& values, float scale = 1.0f) {
  const int n = int(values.size());
  CommGroup group = make_simulated_group(n);
  RankThreads threads(group);
  std::vector<std::vector<float>> out = values;
  threads.run([&](int r) {
    Workspace ws(Device::Cpu);
    std::vector<float>& mine = out[std::size_t(r)];
    exact_all_reduce(threads.comm(r), {{View<float>(mine.data(), mine.size(), Device::Cpu), scale}}, ws);
  });
  return out;
}

}  // namespace

TEST(ExactCombine, OneRankIsTheIdentity) {
  const std::vector<float> v = mixed_values(5000, 1);
  const std::vector<std::vector<float>> out = combine({v});
  EXPECT_TRUE(test::bitwise_equal(out[0], v));
}

TEST(ExactCombine, SeveralRanksGiveTheExactSumInAnyAssignment) {
  const std::size_t n = 4000;
  const int ranks = 5;
  std::vector<std::vector<float>> values;
  for (int r = 0; r < ranks; ++r) values.push_back(mixed_values(n, 10 + std::uint64_t(r)));
  // Large cancellations: rank 4 holds minus rank 0's values in some elements.
  for (std::size_t i = 0; i < n; i += 7) values[4][i] = -values[0][i];
  const std::vector<std::vector<float>> out = combine(values);
  for (int r = 1; r < ranks; ++r) EXPECT_TRUE(test::bitwise_equal(out[std::size_t(r)], out[0])) << "rank " << r;
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = exact::sum([&](std::uint32_t r) { return values[r][i]; }, std::uint32_t(ranks));
    // Identical to the project's exact segmented sum when the largest value is normal (its subnormal-maximum
    // scale differs, both exact), and within half an ulp of the true sum plus the quantisation steps (each value
    // is rounded at 2^-59 of the largest, and the sum passes through a double: visible where values cancel).
    double reference = 0;
    float largest = 0;
    for (int r = 0; r < ranks; ++r) {
      reference += double(values[std::size_t(r)][i]);
      largest = std::max(largest, std::fabs(values[std::size_t(r)][i]));
    }
    if (largest >= 1.17549435e-38f) {
      EXPECT_EQ(out[0][i], expected) << "element " << i;
    }
    const double ulp = std::fabs(double(std::nextafter(float(reference), INFINITY)) - double(float(reference)));
    EXPECT_LE(std::fabs(double(out[0][i]) - reference), 0.5 * ulp + double(largest) * std::ldexp(1.0, -48))
        << "element " << i;
  }
  // Any other assignment of the values to the ranks gives the same bits.
  std::vector<std::vector<float>> shuffled = values;
  std::mt19937_64 rng(3);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<float> column;
    for (int r = 0; r < ranks; ++r) column.push_back(values[std::size_t(r)][i]);
    std::shuffle(column.begin(), column.end(), rng);
    for (int r = 0; r < ranks; ++r) shuffled[std::size_t(r)][i] = column[std::size_t(r)];
  }
  EXPECT_TRUE(test::bitwise_equal(combine(shuffled)[0], out[0]));
}

TEST(ExactCombine, MeansNonFiniteValuesAndManySegments) {
  // Means: scale 1/2.
  const std::vector<std::vector<float>> m = combine({{3.0f, -1.0f, 0.5f}, {1.0f, 2.0f, 0.25f}}, 0.5f);
  EXPECT_EQ(m[1], (std::vector<float>{2.0f, 0.5f, 0.375f}));
  // Any non-finite contribution gives NaN there, on every rank.
  const std::vector<std::vector<float>> f = combine({{INFINITY, 1.0f, NAN}, {1.0f, 2.0f, 0.0f}});
  EXPECT_TRUE(std::isnan(f[0][0]) && std::isnan(f[1][0]));
  EXPECT_EQ(f[0][1], 3.0f);
  EXPECT_TRUE(std::isnan(f[0][2]));
  // 40 segments of different sizes (three batches of at most 16), some empty.
  const int ranks = 3;
  CommGroup group = make_simulated_group(ranks);
  RankThreads threads(group);
  std::vector<std::vector<std::vector<float>>> data(ranks);
  for (int r = 0; r < ranks; ++r)
    for (int s = 0; s < 40; ++s) data[std::size_t(r)].push_back(test::random_floats(std::size_t(s % 5) * 3, 100 * r + s));
  auto result = data;
  threads.run([&](int r) {
    Workspace ws(Device::Cpu);
    std::vector<ExactSegment> segments;
    for (auto& v : result[std::size_t(r)]) segments.push_back({View<float>(v.data(), v.size(), Device::Cpu)});
    exact_all_reduce(threads.comm(r), segments, ws);
  });
  for (int s = 0; s < 40; ++s)
    for (std::size_t i = 0; i < data[0][std::size_t(s)].size(); ++i) {
      const float expected = exact::sum([&](std::uint32_t r) { return data[r][std::size_t(s)][i]; }, ranks);
      EXPECT_EQ(result[2][std::size_t(s)][i], expected) << "segment " << s << " element " << i;
    }
}
