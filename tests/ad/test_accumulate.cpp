// Accumulation strategies on the CPU backend: agreement with float64, bitwise determinism, order
// independence, exactness of the deterministic sum, and error handling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "accumulate_fixtures.h"
#include "test_support.h"
#include "tilegrad/ad/accumulate.h"
#include "tilegrad/ad/exact_sum.h"

using namespace tilegrad;
using test::Records;

namespace {

std::vector<float> run(Accumulation s, const Records& r, const std::vector<std::uint32_t>* offsets = nullptr,
                       std::vector<float> grad = {}) {
  return test::accumulate_records(s, r, offsets, std::move(grad), Device::Cpu);
}

struct Shape {
  std::size_t keys;
  int width;
  bool coherent;
};

}  // namespace

TEST(Accumulate, EveryStrategyMatchesTheFloat64Reference) {
  for (Shape sh : {Shape{1, 1, false}, Shape{7, 3, true}, Shape{1000, 9, false}, Shape{1000, 9, true},
                   Shape{5000, 32, false}}) {
    SCOPED_TRACE(::testing::Message() << "keys " << sh.keys << " width " << sh.width << " coherent " << sh.coherent);
    const Records r = test::make_records(20000, 5000, sh.keys, sh.width, sh.coherent, 42);
    const auto ref = test::reference_sums(r);
    const auto grouped = test::group_by_owner(r);
    EXPECT_LT(test::worst_error(run(Accumulation::Atomic, r), ref), 1e-5);
    EXPECT_LT(test::worst_error(run(Accumulation::WarpAggregated, r), ref), 1e-5);
    EXPECT_LT(test::worst_error(run(Accumulation::SortReduce, r), ref), 1e-6);
    EXPECT_LT(test::worst_error(run(Accumulation::Owned, grouped.records, &grouped.offsets), ref), 1e-6);
  }
}

TEST(Accumulate, DeterministicStrategiesAreCorrectlyRoundedSums) {
  // Exact integer accumulation: the result is the float64 reference rounded to float (up to one ulp).
  const Records r = test::make_records(50000, 64, 64, 4, false, 9);
  const auto ref = test::reference_sums(r);
  const auto got = run(Accumulation::SortReduce, r);
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::fabs(got[i] - ref.sum[i]), std::fabs(ref.sum[i]) * 1.2e-7 + 1e-12) << i;
}

TEST(Accumulate, ExactSumSurvivesCancellation) {
  // Float summation in this order gives 0 (1e8 + 1 rounds to 1e8); the exact sum gives 1.
  Records r;
  r.num_params = 1;
  r.width = 1;
  r.ids = {0, 0, 0};
  r.values = {1e8f, 1.0f, -1e8f};
  EXPECT_EQ(run(Accumulation::SortReduce, r)[0], 1.0f);
  std::vector<std::uint32_t> offsets = {0, 3};
  EXPECT_EQ(run(Accumulation::Owned, r, &offsets)[0], 1.0f);
}

TEST(Accumulate, DeterministicStrategiesRepeatBitwise) {
  const Records r = test::make_records(30000, 4096, 300, 9, true, 5);
  const auto grouped = test::group_by_owner(r);
  const auto first_sort = run(Accumulation::SortReduce, r);
  const auto first_owned = run(Accumulation::Owned, grouped.records, &grouped.offsets);
  EXPECT_TRUE(test::bitwise_equal(first_sort, first_owned));
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::SortReduce, r), first_sort));
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::Owned, grouped.records, &grouped.offsets), first_owned));
  }
}

TEST(Accumulate, DeterministicStrategiesIgnoreInputOrder) {
  const Records r = test::make_records(30000, 2048, 2048, 9, false, 6);
  const auto grouped = test::group_by_owner(r);
  const auto sorted = run(Accumulation::SortReduce, r);
  const auto owned = run(Accumulation::Owned, grouped.records, &grouped.offsets);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::SortReduce, test::permute(r, seed)), sorted));
    // Owned: any permutation that keeps each record in its owner's segment (stronger than keeping the order).
    const Records shuffled = test::permute(grouped.records, seed, &grouped.offsets);
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::Owned, shuffled, &grouped.offsets), owned));
  }
}

TEST(Accumulate, AddsIntoTheExistingGradient) {
  const Records r = test::make_records(1000, 10, 10, 2, false, 3);
  std::vector<float> start(20);
  for (std::size_t i = 0; i < start.size(); ++i) start[i] = float(i);
  const auto zero_start = run(Accumulation::SortReduce, r);
  const auto got = run(Accumulation::SortReduce, r, nullptr, start);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], start[i] + zero_start[i]);
}

TEST(Accumulate, EmptyInputIsANoOp) {
  Records r;
  r.num_params = 4;
  r.width = 3;
  std::vector<float> start(12, 2.5f);
  std::vector<std::uint32_t> offsets(5, 0);
  for (Accumulation s : kAllAccumulations)
    EXPECT_EQ(run(s, r, s == Accumulation::Owned ? &offsets : nullptr, start), start) << to_string(s);
}

TEST(Accumulate, OutOfRangeIdIsAnErrorAndNothingIsWritten) {
  Records r = test::make_records(100, 10, 10, 1, false, 1);
  r.ids[57] = 10;
  std::vector<float> start(10, 1.0f);
  for (Accumulation s : {Accumulation::Atomic, Accumulation::WarpAggregated, Accumulation::SortReduce}) {
    auto ids = Buffer<std::uint32_t>::from(r.ids, Device::Cpu);
    auto values = Buffer<float>::from(r.values, Device::Cpu);
    auto g = Buffer<float>::from(start, Device::Cpu);
    Contributions in{ids.view(), values.view(), 1, {}};
    Accumulator acc;
    EXPECT_THROW(acc.accumulate(s, in, g.view()), InvalidArgument) << to_string(s);
    EXPECT_EQ(g.to_vector(), start) << to_string(s);
  }
}

TEST(Accumulate, BadOwnedLayoutsAreRejected) {
  const Records r = test::make_records(100, 10, 10, 1, false, 2);
  const auto grouped = test::group_by_owner(r);
  auto bad = grouped.offsets;
  bad.back() = 99;  // does not end at the record count
  EXPECT_THROW(run(Accumulation::Owned, grouped.records, &bad), InvalidArgument);
  bad = grouped.offsets;
  std::swap(bad[3], bad[4]);
  if (bad[3] != bad[4]) {
    EXPECT_THROW(run(Accumulation::Owned, grouped.records, &bad), InvalidArgument);
  }
  // Records in the wrong segment: the ids disagree with the offsets.
  EXPECT_THROW(run(Accumulation::Owned, r, &grouped.offsets), InvalidArgument);
  // Missing offsets.
  EXPECT_THROW(run(Accumulation::Owned, grouped.records, nullptr), InvalidArgument);
}

TEST(Accumulate, ShapeErrorsNameTheProblem) {
  std::vector<std::uint32_t> ids = {0, 1};
  std::vector<float> values = {1, 2, 3};  // not a multiple of width 2
  std::vector<float> grad(4);
  Contributions in{View<const std::uint32_t>(ids.data(), 2, Device::Cpu),
                   View<const float>(values.data(), 3, Device::Cpu), 2, {}};
  Accumulator acc;
  try {
    acc.accumulate(Accumulation::Atomic, in, View<float>(grad.data(), 4, Device::Cpu));
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of width"), std::string::npos) << e.what();
  }
  in.width = 0;
  EXPECT_THROW(acc.accumulate(Accumulation::Atomic, in, View<float>(grad.data(), 4, Device::Cpu)), InvalidArgument);
  in.width = 33;
  EXPECT_THROW(acc.accumulate(Accumulation::Atomic, in, View<float>(grad.data(), 4, Device::Cpu)), InvalidArgument);
}

TEST(Accumulate, NonFiniteValuesGiveOrderIndependentResults) {
  Records r;
  r.num_params = 3;
  r.width = 1;
  const float inf = std::numeric_limits<float>::infinity();
  r.ids = {0, 0, 1, 1, 2, 2, 2};
  r.values = {inf, 1.0f, inf, -inf, std::nanf(""), 1.0f, 2.0f};
  for (Accumulation s : {Accumulation::SortReduce}) {
    const auto got = run(s, r);
    EXPECT_EQ(got[0], inf);
    EXPECT_TRUE(std::isnan(got[1]));
    EXPECT_TRUE(std::isnan(got[2]));
  }
}

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

TEST(ExactSum, PowerOfTwoScaleIsExactOverTheWholeRange) {
  // quantize/dequantize scale by pow2(k), assembled from exponent bits; it must be ldexp exactly for every
  // exponent the sums use (k in [-98, 210], and its negation).
  for (int k = -210; k <= 210; ++k) ASSERT_EQ(exact::pow2(k), std::ldexp(1.0, k)) << k;
}
