// Initialisation: nearest-neighbour scales against brute force, Gaussians from points, random points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "test_support.h"
#include "tilegrad/training/initialize.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {
std::vector<float> brute_force(const std::vector<float>& p, int k) {
  const std::size_t n = p.size() / 3;
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> d;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double s = 0;
      for (int a = 0; a < 3; ++a) s += std::pow(double(p[3 * i + a]) - p[3 * j + a], 2);
      d.push_back(s);
    }
    std::sort(d.begin(), d.end());
    double mean = 0;
    const int m = std::min<int>(k, int(d.size()));
    for (int t = 0; t < m; ++t) mean += d[std::size_t(t)] / m;
    out[i] = float(std::sqrt(std::max(mean, 1e-7)));
  }
  return out;
}
}  // namespace

TEST(Initialize, NearestNeighbourScalesMatchBruteForce) {
  // Clustered, anisotropic points with duplicates: the grid search must still be exact.
  std::mt19937_64 rng(3);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> p;
  for (int i = 0; i < 700; ++i) {
    const float cluster = float(i % 3) * 5.0f;
    p.insert(p.end(), {cluster + g(rng), 0.05f * g(rng), 0.3f * g(rng)});
  }
  for (int i = 0; i < 6; ++i) p.insert(p.end(), {p[0], p[1], p[2]});  // coincident points
  const std::vector<float> fast = nearest_neighbour_scales(p), slow = brute_force(p, 3);
  EXPECT_LT(test::max_relative_error(fast, slow), 1e-5);
  EXPECT_NEAR(fast[0], std::sqrt(1e-7f), 1e-9);  // three coincident neighbours: the floor
  EXPECT_EQ(nearest_neighbour_scales({1.0f, 2.0f, 3.0f}).front(), std::sqrt(1e-7f));  // a lone point
}

TEST(Initialize, GaussiansFromPointsFollowThe3dgsRecipe) {
  io::PointCloud pc;
  pc.positions = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3};
  pc.colors = {255, 0, 128, 0, 0, 0, 10, 20, 30, 200, 100, 50};
  InitOptions o;
  o.sh_degree = 2;
  const raster::Gaussians g = gaussians_from_points(pc, o);
  ASSERT_EQ(g.count(), 4u);
  EXPECT_EQ(g.sh_degree, 2);
  const auto sh = g.sh.to_vector(), ls = g.log_scales.to_vector(), q = g.quats.to_vector();
  const auto logits = g.opacity_logits.to_vector();
  // DC reproduces the point colour: 0.5 + Y0 * dc; higher bands start at zero.
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(0.5f + 0.28209479f * sh[std::size_t(c)], pc.colors[std::size_t(c)] / 255.0f, 1e-6);
  for (int k = 3; k < 27; ++k) EXPECT_EQ(sh[std::size_t(k)], 0.0f);
  // Point 0's three neighbours are at distances 1, 2, 3: rms sqrt(14 / 3), isotropic.
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(ls[std::size_t(a)], std::log(std::sqrt(14.0f / 3.0f)), 1e-5);
  EXPECT_EQ(q[0], 1.0f);
  EXPECT_NEAR(1.0f / (1.0f + std::exp(-logits[0])), 0.1f, 1e-6);
}

TEST(Initialize, RandomPointsFillTheBoxDeterministically) {
  const float centre[3] = {1, -2, 3};
  const io::PointCloud a = random_points(5000, centre, 0.5f, 9), b = random_points(5000, centre, 0.5f, 9);
  EXPECT_EQ(a.positions, b.positions);
  double mean[3] = {0, 0, 0};
  for (std::size_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const float x = a.positions[3 * i + std::size_t(k)];
      ASSERT_GE(x, centre[k] - 0.5f);
      ASSERT_LE(x, centre[k] + 0.5f);
      mean[k] += x / double(a.size());
    }
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mean[k], centre[k], 0.02);
  EXPECT_NE(random_points(10, centre, 0.5f, 10).positions,
            std::vector<float>(a.positions.begin(), a.positions.begin() + 30));
}
