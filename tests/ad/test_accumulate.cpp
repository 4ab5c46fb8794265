// Accumulation strategies on every backend: agreement with float64, exactness of the deterministic sum, bitwise
// repetition and order independence, adding into the gradient, overwriting it, and error handling.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "accumulate_fixtures.h"
#include "backend_test.h"
#include "tilegrad/ad/accumulator.h"

using namespace tilegrad;
using test::Records;

namespace {

class Accumulate : public test::BackendTest {
 protected:
  std::vector<float> run(Accumulation s, const Records& r, const std::vector<std::uint32_t>* offsets = nullptr,
                         std::vector<float> grad = {}, const AccumulateOptions& options = {}) const {
    return test::accumulate_records(s, r, offsets, std::move(grad), device(), options);
  }
};

struct Shape {
  std::size_t keys;
  int width;
  bool coherent;
};

}  // namespace

TEST_P(Accumulate, EveryStrategyMatchesTheFloat64Reference) {
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

TEST_P(Accumulate, DeterministicStrategiesAreCorrectlyRoundedSums) {
  // Exact integer accumulation: the result is the float64 reference rounded to float (up to one ulp).
  const Records r = test::make_records(50000, 64, 64, 4, false, 9);
  const auto ref = test::reference_sums(r);
  const auto got = run(Accumulation::SortReduce, r);
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::fabs(got[i] - ref.sum[i]), std::fabs(ref.sum[i]) * 1.2e-7 + 1e-12) << i;
}

TEST_P(Accumulate, ExactSumSurvivesCancellation) {
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

TEST_P(Accumulate, DeterministicStrategiesRepeatBitwiseAndIgnoreInputOrder) {
  const Records r = test::make_records(test::scaled(1 << 18), 1 << 12, 1 << 12, 9, true, 23);
  const auto grouped = test::group_by_owner(r);
  const auto sorted = run(Accumulation::SortReduce, r);
  const auto owned = run(Accumulation::Owned, grouped.records, &grouped.offsets);
  EXPECT_TRUE(test::bitwise_equal(sorted, owned));
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::SortReduce, r), sorted)) << "run " << i;
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::Owned, grouped.records, &grouped.offsets), owned)) << i;
  }
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::SortReduce, test::permute(r, seed)), sorted));
    // Owned: any permutation that keeps each record in its owner's segment (stronger than keeping the order).
    const Records shuffled = test::permute(grouped.records, seed, &grouped.offsets);
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::Owned, shuffled, &grouped.offsets), owned));
  }
}

TEST_P(Accumulate, AddsIntoTheExistingGradient) {
  const Records r = test::make_records(1000, 10, 10, 2, false, 3);
  std::vector<float> start(20);
  for (std::size_t i = 0; i < start.size(); ++i) start[i] = float(i);
  const auto zero_start = run(Accumulation::SortReduce, r);
  const auto got = run(Accumulation::SortReduce, r, nullptr, start);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], start[i] + zero_start[i]);
}

TEST_P(Accumulate, EmptyInputIsANoOp) {
  Records r;
  r.num_params = 4;
  r.width = 3;
  std::vector<float> start(12, 2.5f);
  std::vector<std::uint32_t> offsets(5, 0);
  for (Accumulation s : kAllAccumulations)
    EXPECT_EQ(run(s, r, s == Accumulation::Owned ? &offsets : nullptr, start), start) << to_string(s);
}

TEST_P(Accumulate, OutOfRangeIdIsAnErrorAndNothingIsWritten) {
  Records r = test::make_records(100, 10, 10, 1, false, 1);
  r.ids[57] = 10;
  std::vector<float> start(10, 1.0f);
  for (Accumulation s : {Accumulation::Atomic, Accumulation::WarpAggregated, Accumulation::SortReduce}) {
    auto ids = Buffer<std::uint32_t>::from(r.ids, device());
    auto values = Buffer<float>::from(r.values, device());
    auto g = Buffer<float>::from(start, device());
    Contributions in{ids.view(), values.view(), 1, {}};
    Accumulator acc(device());
    EXPECT_THROW(acc.accumulate(s, in, g.view()), InvalidArgument) << to_string(s);
    EXPECT_EQ(g.to_vector(), start) << to_string(s);
  }
}

TEST_P(Accumulate, BadOwnedLayoutsAreRejected) {
  const Records r = test::make_records(100, 10, 10, 1, false, 2);
  const auto grouped = test::group_by_owner(r);
  auto bad = grouped.offsets;
  bad.back() = 99;  // does not end at the record count
  EXPECT_THROW(run(Accumulation::Owned, grouped.records, &bad), InvalidArgument);
  bad = grouped.offsets;
  bad[5] = bad[6] + 1;  // decreasing
  EXPECT_THROW(run(Accumulation::Owned, grouped.records, &bad), InvalidArgument);
  // Records in the wrong segment: the ids disagree with the offsets.
  EXPECT_THROW(run(Accumulation::Owned, r, &grouped.offsets), InvalidArgument);
  // Missing offsets.
  EXPECT_THROW(run(Accumulation::Owned, grouped.records, nullptr), InvalidArgument);
}

TEST_P(Accumulate, ShapeErrorsNameTheProblem) {
  auto ids = Buffer<std::uint32_t>::from(std::vector<std::uint32_t>{0, 1}, device());
  auto values = Buffer<float>::from(std::vector<float>{1, 2, 3}, device());  // not a multiple of width 2
  auto grad = Buffer<float>::zeros(4, device());
  Contributions in{ids.view(), values.view(), 2, {}};
  Accumulator acc(device());
  try {
    acc.accumulate(Accumulation::Atomic, in, grad.view());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of width"), std::string::npos) << e.what();
  }
  in.width = 0;
  EXPECT_THROW(acc.accumulate(Accumulation::Atomic, in, grad.view()), InvalidArgument);
  in.width = 33;
  EXPECT_THROW(acc.accumulate(Accumulation::Atomic, in, grad.view()), InvalidArgument);
}

TEST_P(Accumulate, NonFiniteValuesGiveOrderIndependentResults) {
  Records r;
  r.num_params = 3;
  r.width = 1;
  const float inf = std::numeric_limits<float>::infinity();
  r.ids = {0, 0, 1, 1, 2, 2, 2};
  r.values = {inf, 1.0f, inf, -inf, std::nanf(""), 1.0f, 2.0f};
  std::vector<std::uint32_t> offsets = {0, 2, 4, 7};
  for (std::uint64_t seed : {0, 1, 2}) {
    const Records p = seed ? test::permute(r, seed, &offsets) : r;
    for (const auto& got : {run(Accumulation::SortReduce, p), run(Accumulation::Owned, p, &offsets)}) {
      EXPECT_EQ(got[0], inf);
      EXPECT_TRUE(std::isnan(got[1]));
      EXPECT_TRUE(std::isnan(got[2]));
    }
  }
}

TEST_P(Accumulate, OverwriteGivesTheBitsOfAddingIntoZeros) {
  // Few segments, many segments (CUDA: a block per segment, or windows of them with the bound), and segments
  // longer than the bounded path takes; with and without the bound. Owned and SortReduce (records shuffled).
  struct Case {
    std::size_t segments;
    std::uint32_t longest;
    int width;
  };
  for (Case cs : {Case{150, 2000, 1}, Case{150, 2000, 9}, Case{150, 2000, 32}, Case{test::scaled(6000), 2000, 9},
                  Case{test::scaled(6000), 2000, 1}, Case{100, 6000, 1}, Case{100, 6000, 9}}) {
    SCOPED_TRACE(::testing::Message() << cs.segments << " segments up to " << cs.longest << " rows, width "
                                      << cs.width);
    const test::Grouped g = test::overwrite_segments(cs.segments, cs.longest, cs.width, 100 + cs.width);
    const std::size_t n = g.records.num_params * cs.width;
    AccumulateOptions overwrite;
    overwrite.overwrite = true;
    for (std::uint32_t bound : {0u, cs.longest}) {
      SCOPED_TRACE(::testing::Message() << "bound " << bound);
      AccumulateOptions add;
      add.max_segment_rows = overwrite.max_segment_rows = bound;
      const auto added = run(Accumulation::Owned, g.records, &g.offsets, std::vector<float>(n, 0.0f), add);
      EXPECT_TRUE(test::bitwise_equal(
          run(Accumulation::Owned, g.records, &g.offsets, test::garbage(n, cs.segments + bound), overwrite), added));
    }
    const Records shuffled = test::permute(g.records, 7);
    overwrite.max_segment_rows = 0;
    const auto added = run(Accumulation::SortReduce, shuffled, nullptr, std::vector<float>(n, 0.0f));
    EXPECT_TRUE(
        test::bitwise_equal(run(Accumulation::SortReduce, shuffled, nullptr, test::garbage(n, 3), overwrite), added));
  }
}

TEST_P(Accumulate, OverwriteOfEmptyInputWritesPositiveZeros) {
  Records r;
  r.num_params = 4;
  r.width = 3;
  const std::vector<float> start = test::garbage(12, 5);
  const std::vector<std::uint32_t> offsets(5, 0);
  AccumulateOptions o;
  o.overwrite = true;
  const std::vector<float> zeros(12, 0.0f);
  EXPECT_TRUE(test::bitwise_equal(run(Accumulation::Owned, r, &offsets, start, o), zeros));
  EXPECT_TRUE(test::bitwise_equal(run(Accumulation::SortReduce, r, nullptr, start, o), zeros));
  // Through segmented_sum, the entry point of producers that lay out their records themselves.
  auto values = Buffer<float>::zeros(0, device());
  auto off = Buffer<std::uint32_t>::from(offsets, device());
  auto g = Buffer<float>::from(start, device());
  Accumulator acc(device());
  acc.segmented_sum(values.view(), 3, off.view(), g.view(), o);
  EXPECT_TRUE(test::bitwise_equal(g.to_vector(), zeros));
}

TEST_P(Accumulate, OverwriteThroughSegmentedSumStoresEveryRow) {
  const test::Grouped g = test::overwrite_segments(40, 400, 4, 8);
  const std::size_t n = g.records.num_params * 4;
  auto values = Buffer<float>::from(g.records.values, device());
  auto off = Buffer<std::uint32_t>::from(g.offsets, device());
  auto added = Buffer<float>::zeros(n, device());
  auto stored = Buffer<float>::from(test::garbage(n, 9), device());
  Accumulator acc(device());
  acc.segmented_sum(values.view(), 4, off.view(), added.view());
  AccumulateOptions o;
  o.overwrite = true;
  acc.segmented_sum(values.view(), 4, off.view(), stored.view(), o);
  EXPECT_TRUE(test::bitwise_equal(stored.to_vector(), added.to_vector()));
}

TEST_P(Accumulate, OverwriteIsRejectedByTheAddingStrategies) {
  const Records r = test::make_records(100, 10, 10, 1, false, 1);
  const std::vector<float> start(10, 1.0f);
  AccumulateOptions o;
  o.overwrite = true;
  for (Accumulation s : {Accumulation::Atomic, Accumulation::WarpAggregated}) {
    auto ids = Buffer<std::uint32_t>::from(r.ids, device());
    auto values = Buffer<float>::from(r.values, device());
    auto g = Buffer<float>::from(start, device());
    Accumulator acc(device());
    try {
      acc.accumulate(s, Contributions{ids.view(), values.view(), 1, {}}, g.view(), o);
      ADD_FAILURE() << to_string(s) << " accepted overwrite";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("overwrite"), std::string::npos) << e.what();
    }
    EXPECT_EQ(g.to_vector(), start) << to_string(s);
  }
}

TG_BACKEND_TESTS(Accumulate);
