// Partition logic: ranges, Morton order, tile work from difference arrays, region bisection (coverage, balance,
// determinism), halos, exchange plans and range moves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "fixtures.h"
#include "tilegrad/core/error.h"
#include "tilegrad/distributed/partition.h"
#include "tilegrad/training/densify.h"

using namespace tilegrad;
using namespace tilegrad::distributed;

TEST(Partition, BalancedRanges) {
  EXPECT_EQ(balanced_ranges(10, 3), (std::vector<std::size_t>{0, 4, 7, 10}));
  EXPECT_EQ(balanced_ranges(2, 4), (std::vector<std::size_t>{0, 1, 2, 2, 2}));
  EXPECT_EQ(balanced_ranges(0, 2), (std::vector<std::size_t>{0, 0, 0}));
  EXPECT_THROW(balanced_ranges(5, 0), InvalidArgument);
}

TEST(Partition, MortonOrderInterleavesAxesAndKeepsNeighboursTogether) {
  // The corners of a cube: code bits are x, y, z of each level interleaved (x lowest).
  std::vector<float> corners;
  for (int i = 0; i < 8; ++i) corners.insert(corners.end(), {float(i & 1), float((i >> 1) & 1), float((i >> 2) & 1)});
  std::vector<float> reversed;
  for (int i = 7; i >= 0; --i) reversed.insert(reversed.end(), corners.begin() + 3 * i, corners.begin() + 3 * i + 3);
  EXPECT_EQ(morton_order(reversed), (std::vector<std::uint32_t>{7, 6, 5, 4, 3, 2, 1, 0}));
  const std::vector<std::uint64_t> codes = morton_codes(corners);
  for (int i = 1; i < 8; ++i) EXPECT_LT(codes[std::size_t(i - 1)], codes[std::size_t(i)]);
  // Points in 8 well separated clusters, shuffled: the order puts each cluster in one run.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> jitter(-0.1f, 0.1f);
  std::vector<float> pts;
  std::vector<int> cluster;
  for (int k = 0; k < 400; ++k) {
    const int c = int(rng() % 8);
    cluster.push_back(c);
    pts.insert(pts.end(), {10.0f * float(c & 1) + jitter(rng), 10.0f * float((c >> 1) & 1) + jitter(rng),
                           10.0f * float(c >> 2) + jitter(rng)});
  }
  const std::vector<std::uint32_t> order = morton_order(pts);
  int runs = 1;
  for (std::size_t i = 1; i < order.size(); ++i) runs += cluster[order[i]] != cluster[order[i - 1]];
  EXPECT_EQ(runs, 8);
}

TEST(Partition, TileInstancesFromDifferencesMatchCounting) {
  const int tx = 7, ty = 5;
  std::vector<int> diff(std::size_t((tx + 1) * (ty + 1)), 0), brute(std::size_t(tx * ty), 0);
  std::mt19937 rng(9);
  for (int k = 0; k < 300; ++k) {
    const int x0 = int(rng() % tx), y0 = int(rng() % ty);
    const int x1 = x0 + 1 + int(rng() % (tx - x0)), y1 = y0 + 1 + int(rng() % (ty - y0));
    diff[std::size_t(y0 * (tx + 1) + x0)] += 1;
    diff[std::size_t(y0 * (tx + 1) + x1)] -= 1;
    diff[std::size_t(y1 * (tx + 1) + x0)] -= 1;
    diff[std::size_t(y1 * (tx + 1) + x1)] += 1;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) ++brute[std::size_t(y * tx + x)];
  }
  const std::vector<std::int64_t> work = tile_instances(diff, tx, ty);
  for (std::size_t i = 0; i < brute.size(); ++i) EXPECT_EQ(work[i], brute[i]) << "tile " << i;
}

namespace {
std::int64_t region_work(const std::vector<std::int64_t>& work, int tx, const raster::TileRect& r) {
  std::int64_t s = 0;
  for (int y = r.y0; y < r.y1; ++y)
    for (int x = r.x0; x < r.x1; ++x) s += work[std::size_t(y * tx + x)];
  return s;
}
}  // namespace

TEST(Partition, RegionsCoverTheGridOnceAndBalanceWork) {
  const int tx = 25, ty = 17;  // 400 x 272 pixels
  std::vector<std::int64_t> work(std::size_t(tx * ty));
  // A hot spot: tiles near (18, 4) hold most of the instances, as an object in one corner of a view does.
  for (int y = 0; y < ty; ++y)
    for (int x = 0; x < tx; ++x) {
      const int d2 = (x - 18) * (x - 18) + (y - 4) * (y - 4);
      work[std::size_t(y * tx + x)] = kTileBaseWork + std::max(0, 2000 - 40 * d2);
    }
  const std::int64_t total = std::accumulate(work.begin(), work.end(), std::int64_t(0));
  std::int64_t largest_tile = *std::max_element(work.begin(), work.end());
  for (int ranks = 1; ranks <= 8; ++ranks) {
    const std::vector<raster::TileRect> regions = split_regions(work, tx, ty, ranks);
    ASSERT_EQ(regions.size(), std::size_t(ranks));
    std::vector<int> owner(std::size_t(tx * ty), 0);
    std::int64_t most = 0;
    for (const raster::TileRect& r : regions) {
      for (int y = r.y0; y < r.y1; ++y)
        for (int x = r.x0; x < r.x1; ++x) ++owner[std::size_t(y * tx + x)];
      most = std::max(most, region_work(work, tx, r));
    }
    for (int c : owner) ASSERT_EQ(c, 1) << ranks << " ranks: a tile is owned " << c << " times";
    // Bisection at the best cut along one axis: every level loses at most a slab's work to rounding. A uniform
    // split into equal areas would give the hot rank most of the work.
    const double ideal = double(total) / ranks;
    EXPECT_LE(double(most), ideal * 1.6 + 2.0 * double(largest_tile) * ty) << ranks << " ranks";
    if (ranks == 4) {
      EXPECT_LE(double(most), 1.35 * ideal);
    }
    EXPECT_EQ(split_regions(work, tx, ty, ranks).front().x1, regions.front().x1);  // deterministic
  }
}

TEST(Partition, MoreRanksThanTilesLeaveSomeEmpty) {
  const std::vector<std::int64_t> work = {5, 1, 1, 5};  // 2 x 2 tiles
  const std::vector<raster::TileRect> regions = split_regions(work, 2, 2, 6);
  int covered = 0, empty = 0;
  for (const raster::TileRect& r : regions) {
    covered += r.area();
    empty += r.area() == 0;
  }
  EXPECT_EQ(covered, 4);
  EXPECT_EQ(empty, 2);
  EXPECT_EQ(split_regions({}, 0, 0, 3).size(), 3u);
  EXPECT_THROW(split_regions({1, -1}, 2, 1, 2), InvalidArgument);
}

TEST(Partition, HaloAndPixels) {
  const raster::TileRect r{2, 0, 4, 3};
  const raster::TileRect g = grow_region(r, 1, 5, 3);
  EXPECT_EQ(g.x0, 1);
  EXPECT_EQ(g.y0, 0);
  EXPECT_EQ(g.x1, 5);
  EXPECT_EQ(g.y1, 3);
  EXPECT_EQ(grow_region({0, 0, 0, 0}, 1, 5, 3).area(), 0);
  const PixelRect p = pixel_rect(g, 70, 40);  // the last tile column and row are partial
  EXPECT_EQ(p.x0, 16);
  EXPECT_EQ(p.x1, 70);
  EXPECT_EQ(p.y1, 40);
  EXPECT_TRUE(pixel_rect({0, 0, 0, 0}, 70, 40).empty());
}

TEST(Partition, ExchangePlansAgreeBetweenSendersAndReceivers) {
  const int n = 4;
  std::vector<std::uint64_t> counts(n * n);
  std::mt19937 rng(2);
  for (auto& c : counts) c = rng() % 5;
  std::vector<ExchangePlan> plans;
  for (int r = 0; r < n; ++r) plans.push_back(plan_exchange(counts, n, r, 12));
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      EXPECT_EQ(plans[std::size_t(s)].send_bytes[std::size_t(d)], plans[std::size_t(d)].recv_bytes[std::size_t(s)]);
      EXPECT_EQ(plans[std::size_t(s)].send_bytes[std::size_t(d)], counts[std::size_t(s * n + d)] * 12);
    }
  for (const ExchangePlan& p : plans)
    for (int r = 1; r < n; ++r)
      EXPECT_EQ(p.send_offsets[std::size_t(r)], p.send_offsets[std::size_t(r - 1)] + p.send_bytes[std::size_t(r - 1)]);
  const std::vector<std::uint64_t> t = transposed(counts, n);
  EXPECT_EQ(plan_exchange(t, n, 2, 12).send_total, plans[2].recv_total);
  // Range moves conserve every row and only move between overlapping ranges.
  const std::vector<std::size_t> before = {0, 10, 11, 30, 31}, after = balanced_ranges(31, 4);
  const std::vector<std::uint64_t> m = moves_between_ranges(before, after);
  for (int s = 0; s < n; ++s) {
    std::uint64_t out = 0, in = 0;
    for (int d = 0; d < n; ++d) {
      out += m[std::size_t(s * n + d)];
      in += m[std::size_t(d * n + s)];
    }
    EXPECT_EQ(out, before[std::size_t(s) + 1] - before[std::size_t(s)]);
    EXPECT_EQ(in, after[std::size_t(s) + 1] - after[std::size_t(s)]);
  }
  EXPECT_THROW(moves_between_ranges({0, 5}, {0, 6}), InvalidArgument);
}

// Densification is per Gaussian, and split offsets are drawn per global index: densifying the parts of a model
// (each with its first global index) and concatenating them gives the densified whole, bit for bit.
TEST(Partition, DensifyingThePartsEqualsDensifyingTheWhole) {
  const std::size_t n = 300;
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), unit(0.0f, 1.0f);
  raster::Gaussians g = raster::Gaussians::allocate(n, 1, Device::Cpu);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      g.means.data()[3 * i + a] = u(rng);
      g.log_scales.data()[3 * i + a] = std::log(0.002f + 0.05f * unit(rng));
    }
    for (int a = 0; a < 4; ++a) g.quats.data()[4 * i + a] = u(rng) + (a == 0 ? 1.5f : 0.0f);
    g.opacity_logits.data()[i] = 5.0f * u(rng);
    for (int k = 0; k < 12; ++k) g.sh.data()[12 * i + std::size_t(k)] = u(rng);
  }
  training::GaussianModel whole = training::GaussianModel::from_parameters(std::move(g));
  for (std::size_t i = 0; i < n; ++i) {
    whole.grad_accum.data()[i] = 1e-3f * unit(rng);
    whole.view_count.data()[i] = 1.0f + float(i % 3);
    whole.max_radius.data()[i] = 10.0f * unit(rng);
  }
  training::DensifyRule rule{2e-4f, 0.02f, 0.005f, 0.0f, 0.0f};
  const auto part = [&](std::size_t first, std::size_t count) { return test::model_rows(whole, first, count); };
  training::GaussianModel a = part(0, 137), b = part(137, n - 137), c = part(137, n - 137);
  const training::DensifyCounts counts = training::densify_and_prune(whole, rule, 5, 900);
  ASSERT_GT(counts.split, 0u);
  ASSERT_GT(counts.cloned, 0u);
  training::densify_and_prune(a, rule, 5, 900, 0);
  training::densify_and_prune(b, rule, 5, 900, 137);
  ASSERT_EQ(a.count() + b.count(), whole.count());
  std::vector<float> joined = a.params.means.to_vector();
  const std::vector<float> tail = b.params.means.to_vector();
  joined.insert(joined.end(), tail.begin(), tail.end());
  EXPECT_EQ(joined, whole.params.means.to_vector());
  // The offsets do depend on the index: the second part densified as if it came first differs.
  training::densify_and_prune(c, rule, 5, 900, 0);
  EXPECT_NE(c.params.means.to_vector(), tail);
}
