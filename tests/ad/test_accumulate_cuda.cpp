// Accumulation on CUDA against the CPU backend (bitwise for the deterministic strategies), and what only the CUDA
// backend has: the planned and the bounded paths of the segmented sum (adding and overwriting), buffers of the
// wrong device. (The properties every backend has are test_accumulate.cpp's, run here on CUDA.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "accumulate_fixtures.h"
#include "test_support.h"

using namespace tilegrad;
using test::Records;

namespace {
std::vector<float> run(Accumulation s, const Records& r, Device d, const std::vector<std::uint32_t>* offsets = nullptr) {
  return test::accumulate_records(s, r, offsets, {}, d);
}
struct Shape {
  std::size_t count, num_params, keys;
  int width;
  bool coherent;
};
}  // namespace

TEST(AccumulateCuda, MatchesTheCpuBackend) {
  TG_REQUIRE_CUDA();
  // Short segments only, long (chunked) segments, one giant segment, wide rows.
  for (Shape sh : {Shape{100000, 100000, 100000, 9, false}, Shape{200000, 4096, 16, 9, true},
                   Shape{300000, 1, 1, 1, false}, Shape{300000, 3, 3, 9, false}, Shape{50000, 512, 40, 32, true},
                   Shape{77777, 1000, 1000, 5, true}, Shape{20000, 2, 2, 10, true}}) {
    SCOPED_TRACE(::testing::Message() << sh.count << " records, " << sh.keys << " keys, width " << sh.width);
    const Records r = test::make_records(test::scaled(sh.count), sh.num_params, sh.keys, sh.width, sh.coherent, 17);
    const auto ref = test::reference_sums(r);
    const auto grouped = test::group_by_owner(r);
    const auto cpu_sort = run(Accumulation::SortReduce, r, Device::Cpu);
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::SortReduce, r, Device::Cuda), cpu_sort));
    EXPECT_TRUE(test::bitwise_equal(run(Accumulation::Owned, grouped.records, Device::Cuda, &grouped.offsets), cpu_sort));
    EXPECT_LT(test::worst_error(run(Accumulation::Atomic, r, Device::Cuda), ref), 1e-5);
    EXPECT_LT(test::worst_error(run(Accumulation::WarpAggregated, r, Device::Cuda), ref), 1e-5);
  }
}

TEST(AccumulateCuda, ASegmentLengthBoundKeepsTheBits) {
  TG_REQUIRE_CUDA();
  // Segments of 0 to ~2,000 rows (with a bound, one block per segment) and non-finite values in two of them:
  // the same bits as the planned path, whether the bound is right or too small.
  for (int width : {1, 10, 32}) {
    SCOPED_TRACE(::testing::Message() << "width " << width);
    Records r = test::make_records(test::scaled(60000), 64, 60, width, true, 5 + width);
    const auto grouped = test::group_by_owner(r);
    Records g = grouped.records;
    g.values[std::size_t(grouped.offsets[3]) * width] = std::numeric_limits<float>::infinity();
    g.values[std::size_t(grouped.offsets[9] + 1) * width] = std::numeric_limits<float>::quiet_NaN();
    std::uint32_t longest = 0;
    for (std::size_t p = 0; p + 1 < grouped.offsets.size(); ++p)
      longest = std::max(longest, grouped.offsets[p + 1] - grouped.offsets[p]);
    ASSERT_LE(longest, 2048u);
    const auto planned = test::accumulate_records(Accumulation::Owned, g, &grouped.offsets, {}, Device::Cuda);
    const auto cpu = test::accumulate_records(Accumulation::Owned, g, &grouped.offsets, {}, Device::Cpu);
    // The GPU's arithmetic returns its canonical NaN: equal bits everywhere else.
    ASSERT_EQ(planned.size(), cpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i) {
      if (std::isnan(cpu[i])) EXPECT_TRUE(std::isnan(planned[i])) << i;
      else EXPECT_TRUE(test::bitwise_equal({planned[i]}, {cpu[i]})) << i;
    }
    for (std::uint32_t bound : {longest, 1u}) {
      AccumulateOptions o;
      o.max_segment_rows = bound;
      EXPECT_TRUE(test::bitwise_equal(
          test::accumulate_records(Accumulation::Owned, g, &grouped.offsets, {}, Device::Cuda, o), planned))
          << "bound " << bound;
    }
  }
}

TEST(AccumulateCuda, ABoundOverManySegmentsKeepsTheBits) {
  TG_REQUIRE_CUDA();
  // Tens of thousands of segments (the bound's path then gives each block a window of them): each is summed by a
  // thread per component, a warp or the whole block by its length. Three mixes of lengths, whose means (about 66,
  // 10.5 and 3.5 rows) give the thread-per-component kernel each of its register capacities (32, 16 and 8 rows),
  // so each size class meets segments just above and below its limits. Non-finite values in a short, a middle
  // and a long segment. Same bits as the planned path and the CPU, added or stored.
  struct Mix {
    int short_pct, middle_pct;  // percent of segments in each class; the rest are long
    std::uint32_t short_max, middle_lo, middle_hi, long_lo, long_hi;
  };
  for (Mix mix : {Mix{80, 18, 32, 33, 300, 301, 2000}, Mix{80, 19, 12, 9, 30, 100, 300},
                  Mix{96, 3, 4, 5, 40, 60, 120}}) {
    for (int width : {1, 9, 12}) {
      SCOPED_TRACE(::testing::Message() << "width " << width << ", short segments up to " << mix.short_max);
      std::mt19937_64 rng(31 + width + mix.short_max);
      std::uniform_int_distribution<std::uint32_t> pick(0, 99), tiny(0, mix.short_max),
          middle(mix.middle_lo, mix.middle_hi), longer(mix.long_lo, mix.long_hi);
      std::vector<std::uint32_t> offsets{0};
      const std::size_t segments = test::scaled(40000);
      for (std::size_t p = 0; p < segments; ++p) {
        const int k = int(pick(rng));
        offsets.push_back(offsets.back() + (k < mix.short_pct                   ? tiny(rng)
                                            : k < mix.short_pct + mix.middle_pct ? middle(rng)
                                                                                 : longer(rng)));
      }
      Records g;
      g.num_params = segments;
      g.width = width;
      g.values.resize(std::size_t(offsets.back()) * width);
      std::uniform_real_distribution<float> val(-1.0f, 1.0f);
      for (auto& v : g.values) v = val(rng);
      for (std::size_t p = 0; p < segments; ++p)
        g.ids.insert(g.ids.end(), offsets[p + 1] - offsets[p], std::uint32_t(p));
      std::uint32_t longest = 0;
      std::vector<std::uint32_t> marked;  // the first segment of each class with enough rows
      for (std::uint32_t lo : {2u, mix.middle_lo, mix.long_lo})
        for (std::size_t p = 0; p < segments; ++p)
          if (offsets[p + 1] - offsets[p] >= lo) {
            marked.push_back(offsets[p]);
            break;
          }
      for (std::size_t p = 0; p < segments; ++p) longest = std::max(longest, offsets[p + 1] - offsets[p]);
      ASSERT_EQ(marked.size(), 3u);
      g.values[std::size_t(marked[0]) * width] = std::numeric_limits<float>::infinity();
      g.values[std::size_t(marked[1] + 1) * width] = std::numeric_limits<float>::quiet_NaN();
      g.values[std::size_t(marked[2]) * width] = std::numeric_limits<float>::infinity();
      g.values[std::size_t(marked[2] + mix.long_lo / 2) * width] = -std::numeric_limits<float>::infinity();
      const auto planned = test::accumulate_records(Accumulation::Owned, g, &offsets, {}, Device::Cuda);
      const auto cpu = test::accumulate_records(Accumulation::Owned, g, &offsets, {}, Device::Cpu);
      ASSERT_EQ(planned.size(), cpu.size());
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        if (std::isnan(cpu[i])) EXPECT_TRUE(std::isnan(planned[i])) << i;
        else EXPECT_TRUE(test::bitwise_equal({planned[i]}, {cpu[i]})) << i;
      }
      AccumulateOptions o;
      o.max_segment_rows = longest;
      const auto bounded = test::accumulate_records(Accumulation::Owned, g, &offsets, {}, Device::Cuda, o);
      EXPECT_TRUE(test::bitwise_equal(bounded, planned));
      EXPECT_TRUE(test::bitwise_equal(test::accumulate_records(Accumulation::Owned, g, &offsets, {}, Device::Cuda, o),
                                      bounded))
          << "repeat";
      o.overwrite = true;
      const auto stored = test::accumulate_records(Accumulation::Owned, g, &offsets,
                                                   test::garbage(segments * width, longest), Device::Cuda, o);
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < cpu.size(); ++i)
        mismatches += std::isnan(cpu[i]) ? !std::isnan(stored[i]) : !test::bitwise_equal({stored[i]}, {cpu[i]});
      EXPECT_EQ(mismatches, 0u) << "overwrite";
    }
  }
}

TEST(AccumulateCuda, OverwriteMatchesTheCpuBackend) {
  TG_REQUIRE_CUDA();
  // Every size class of the CUDA sum (a thread per component, a warp, a block, chunks; few segments, windows of
  // many, with and without a bound), stored over a gradient of garbage: the CPU backend's bits, adding into
  // zeros (the GPU's arithmetic returns its canonical NaN, so NaNs compare as NaNs).
  struct Case {
    std::size_t segments;
    std::uint32_t longest;
    int width;
  };
  for (Case cs : {Case{150, 2000, 1}, Case{150, 2000, 12}, Case{test::scaled(20000), 2000, 9},
                  Case{test::scaled(20000), 2000, 1}, Case{100, 6000, 9}}) {
    SCOPED_TRACE(::testing::Message() << cs.segments << " segments up to " << cs.longest << " rows, width "
                                      << cs.width);
    const test::Grouped g = test::overwrite_segments(cs.segments, cs.longest, cs.width, 200 + cs.width);
    const std::size_t n = g.records.num_params * cs.width;
    std::uint32_t longest = 0;
    for (std::size_t p = 0; p + 1 < g.offsets.size(); ++p) longest = std::max(longest, g.offsets[p + 1] - g.offsets[p]);
    const auto cpu = test::accumulate_records(Accumulation::Owned, g.records, &g.offsets, {}, Device::Cpu);
    // A bound below the longest segment (1, 32: the one-kernel path of short bounds; 100) is wrong, and must
    // cost only time.
    for (std::uint32_t bound : {0u, longest, 1u, 32u, 100u}) {
      AccumulateOptions o;
      o.overwrite = true;
      o.max_segment_rows = bound;
      const auto got = test::accumulate_records(Accumulation::Owned, g.records, &g.offsets, test::garbage(n, bound),
                                                Device::Cuda, o);
      ASSERT_EQ(got.size(), cpu.size());
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < cpu.size(); ++i)
        mismatches += std::isnan(cpu[i]) ? !std::isnan(got[i]) : !test::bitwise_equal({got[i]}, {cpu[i]});
      EXPECT_EQ(mismatches, 0u) << "bound " << bound;
    }
  }
}

TEST(AccumulateCuda, BuffersOfAnotherDeviceAreRejected) {
  TG_REQUIRE_CUDA();
  const Records r = test::make_records(5000, 100, 100, 2, false, 4);
  auto ids = Buffer<std::uint32_t>::from(r.ids, Device::Cpu);
  auto values = Buffer<float>::from(r.values, Device::Cpu);
  auto g = Buffer<float>::zeros(200, Device::Cuda);
  Accumulator acc(Device::Cuda);
  EXPECT_THROW(acc.accumulate(Accumulation::Atomic, Contributions{ids.view(), values.view(), 2, {}}, g.view()),
               InvalidArgument);
}
