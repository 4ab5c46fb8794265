// Adaptive density control: the clone / split / prune plan, outputs and moments moved with their Gaussians,
// statistics of one view, the opacity reset.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fixtures.h"
#include "tilegrad/training/densify.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {

float logit(float p) { return std::log(p / (1 - p)); }

// Gaussian i: scale, opacity, accumulated gradient, views, largest radius.
struct Spec {
  float scale, opacity, grad_accum, views, radius;
};

GaussianModel make_model(const std::vector<Spec>& specs) {
  const std::size_t n = specs.size();
  raster::Gaussians g = raster::Gaussians::allocate(n, 1, Device::Cpu);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      g.means.data()[3 * i + a] = float(i) + 0.1f * a;
      g.log_scales.data()[3 * i + a] = std::log(specs[i].scale) - 0.2f * a;  // largest along x
    }
    const float q[4] = {0.9f, 0.1f, -0.3f, 0.2f};
    for (int a = 0; a < 4; ++a) g.quats.data()[4 * i + a] = q[a];
    g.opacity_logits.data()[i] = logit(specs[i].opacity);
    for (int k = 0; k < 12; ++k) g.sh.data()[12 * i + k] = float(i) * 10 + k;
  }
  GaussianModel m = GaussianModel::from_parameters(std::move(g));
  // Moments that identify their Gaussian and element: 100 i + j (m), 1000 i + j (v).
  auto mark = [&](Buffer<float>& m1, Buffer<float>& v1) {
    const std::size_t w = m1.size() / n;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < w; ++j) {
        m1.data()[i * w + j] = float(100 * i + j);
        v1.data()[i * w + j] = float(1000 * i + j);
      }
  };
  mark(m.adam_m.means, m.adam_v.means);
  mark(m.adam_m.sh, m.adam_v.sh);
  mark(m.adam_m.opacity_logits, m.adam_v.opacity_logits);
  for (std::size_t i = 0; i < n; ++i) {
    m.grad_accum.data()[i] = specs[i].grad_accum;
    m.view_count.data()[i] = specs[i].views;
    m.max_radius.data()[i] = specs[i].radius;
  }
  m.adam_step = 42;
  return m;
}

DensifyRule rule() {
  DensifyRule r;
  r.grad_threshold = 2e-4f;
  r.clone_max_scale = 0.01f;
  r.min_opacity = 0.005f;
  r.max_world_scale = 0.04f;
  r.max_screen_radius = 50.0f;
  return r;
}

}  // namespace

TEST(Densify, ClonesSplitsAndPrunesWithMomentsMovedAlong) {
  const std::vector<Spec> specs = {
      {0.005f, 0.5f, 1e-3f, 2, 3},    // 0: small, high gradient: cloned
      {0.05f, 0.5f, 1e-3f, 2, 3},     // 1: large, high gradient: split, children (0.031) kept
      {0.005f, 0.001f, 0, 2, 3},      // 2: transparent: pruned
      {0.05f, 0.5f, 1e-5f, 2, 3},     // 3: larger than max_world_scale: pruned
      {0.005f, 0.5f, 0, 0, 0},        // 4: never seen: kept as is
      {0.08f, 0.5f, 1e-3f, 1, 3},     // 5: split, but the children (0.05) are still too large: all gone
      {0.005f, 0.5f, 1e-3f, 2, 100},  // 6: cloned, the original pruned by its footprint, the clone kept
  };
  GaussianModel model = make_model(specs);
  const std::vector<float> means_before = model.params.means.to_vector();
  const DensifyCounts c = densify_and_prune(model, rule(), 7, 1000);
  EXPECT_EQ(c.before, 7u);
  EXPECT_EQ(c.cloned, 2u);
  EXPECT_EQ(c.split, 2u);
  EXPECT_EQ(c.pruned, 7u);
  EXPECT_EQ(c.after, 6u);
  EXPECT_EQ(c.before + c.cloned + 2 * c.split - c.pruned, c.after);
  ASSERT_EQ(model.count(), 6u);
  EXPECT_EQ(model.adam_step, 42);
  // Outputs in source order: 0, clone of 0, children of 1 (2), 4, clone of 6.
  const int source[6] = {0, 0, 1, 1, 4, 6};
  const bool fresh[6] = {false, true, true, true, false, true};
  const auto m = model.adam_m.means.to_vector(), v = model.adam_v.sh.to_vector(), sh = model.params.sh.to_vector();
  const auto op_m = model.adam_m.opacity_logits.to_vector();
  const auto means = model.params.means.to_vector(), ls = model.params.log_scales.to_vector();
  for (int o = 0; o < 6; ++o) {
    const int s = source[o];
    for (int j = 0; j < 3; ++j) EXPECT_EQ(m[3 * o + j], fresh[o] ? 0.0f : float(100 * s + j)) << "output " << o;
    for (int j = 0; j < 12; ++j) {
      EXPECT_EQ(v[12 * o + j], fresh[o] ? 0.0f : float(1000 * s + j)) << "output " << o;
      EXPECT_EQ(sh[12 * o + j], float(s) * 10 + j) << "parameters move with the Gaussian";
    }
    EXPECT_EQ(op_m[o], fresh[o] ? 0.0f : float(100 * s));
    for (float x : {means[3 * o], means[3 * o + 1], means[3 * o + 2], ls[3 * o]}) EXPECT_TRUE(std::isfinite(x));
  }
  // Children: scales divided by 1.6, positions sampled around the parent within a few of its scales, distinct.
  for (int o : {2, 3}) {
    EXPECT_NEAR(ls[3 * o], std::log(0.05f) - std::log(1.6f), 1e-5);
    double d2 = 0;
    for (int a = 0; a < 3; ++a) d2 += std::pow(means[3 * o + a] - means_before[3 * 1 + a], 2);
    EXPECT_LT(std::sqrt(d2), 5 * 0.05);
    EXPECT_GT(std::sqrt(d2), 0.0);
  }
  EXPECT_NE(means[6], means[9]);
  // Clones sit exactly on their originals.
  for (int a = 0; a < 3; ++a) EXPECT_EQ(means[3 + a], means[a]);
  // Statistics restart.
  for (float x : model.grad_accum.to_vector()) EXPECT_EQ(x, 0.0f);
  for (float x : model.view_count.to_vector()) EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(model.params.sh_degree, 1);
}

TEST(Densify, SplitOffsetsDependOnlyOnSeedIterationAndIndex) {
  const std::vector<Spec> specs = {{0.05f, 0.5f, 1e-3f, 1, 1}, {0.05f, 0.5f, 1e-3f, 1, 1}};
  GaussianModel a = make_model(specs), b = make_model(specs), c = make_model(specs);
  densify_and_prune(a, rule(), 3, 500);
  densify_and_prune(b, rule(), 3, 500);
  densify_and_prune(c, rule(), 3, 600);
  EXPECT_EQ(a.params.means.to_vector(), b.params.means.to_vector());
  EXPECT_NE(a.params.means.to_vector(), c.params.means.to_vector());
}

TEST(Densify, ViewStatisticsCountRenderedGaussiansOnly) {
  raster::Gaussians g = raster::Gaussians::allocate(3, 0, Device::Cpu);
  const float means[9] = {0.1f, -0.2f, 4.0f, 0.0f, 0.0f, -4.0f, 50.0f, 0.0f, 4.0f};  // in view, behind, far aside
  for (int i = 0; i < 9; ++i) g.means.data()[i] = means[i];
  for (int i = 0; i < 9; ++i) g.log_scales.data()[i] = std::log(0.05f);
  for (int i = 0; i < 12; ++i) g.quats.data()[i] = i % 4 == 0 ? 1.0f : 0.0f;
  for (int i = 0; i < 3; ++i) g.opacity_logits.data()[i] = 0.0f;
  for (int i = 0; i < 3; ++i) g.sh.data()[3 * i] = g.sh.data()[3 * i + 1] = g.sh.data()[3 * i + 2] = 0.0f;
  GaussianModel m = GaussianModel::from_parameters(std::move(g));
  const raster::Camera cam = test::centered_camera(64, 48, 60);
  const std::vector<float> grad = {1e-3f, 2e-3f, 1.0f, 1.0f, 1.0f, 1.0f};
  for (int view = 0; view < 2; ++view)
    accumulate_density_stats(m, cam, {}, View<const float>(grad.data(), grad.size(), Device::Cpu));
  const auto acc = m.grad_accum.to_vector(), views = m.view_count.to_vector(), radius = m.max_radius.to_vector();
  EXPECT_NEAR(acc[0], 2 * std::hypot(1e-3 * 32, 2e-3 * 24), 1e-7);
  EXPECT_EQ(views[0], 2.0f);
  // The footprint radius the rasterizer's projection gives (3 sigma of the blurred 2D covariance, in pixels).
  const raster::Projected<float> pr =
      raster::project_gaussian(Vec3<float>{{0.1f, -0.2f, 4.0f}}, Vec3<float>::filled(std::log(0.05f)),
                               Vec4<float>{{1, 0, 0, 0}}, 0.0f, raster::make_projection_camera(cam), 0.3f, false);
  EXPECT_EQ(radius[0], raster::footprint_radius(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], 3.0f));
  EXPECT_GE(radius[0], 3.0f);
  for (int i : {1, 2}) {
    EXPECT_EQ(acc[std::size_t(i)], 0.0f);
    EXPECT_EQ(views[std::size_t(i)], 0.0f);
  }
}

TEST(Densify, OpacityResetCapsOpacityAndRestartsItsMoments) {
  GaussianModel m = make_model({{0.01f, 0.001f, 0, 0, 0}, {0.01f, 0.5f, 0, 0, 0}, {0.01f, 0.99f, 0, 0, 0}});
  const std::uint64_t version = m.params.version;
  reset_opacity(m, 0.01f);
  const auto l = m.params.opacity_logits.to_vector();
  EXPECT_NEAR(l[0], logit(0.001f), 1e-5);
  EXPECT_NEAR(l[1], logit(0.01f), 1e-5);
  EXPECT_NEAR(l[2], logit(0.01f), 1e-5);
  for (float x : m.adam_m.opacity_logits.to_vector()) EXPECT_EQ(x, 0.0f);
  for (float x : m.adam_v.opacity_logits.to_vector()) EXPECT_EQ(x, 0.0f);
  EXPECT_GT(m.params.version, version);
  // Other moments are untouched.
  EXPECT_EQ(m.adam_m.means.to_vector()[4], 101.0f);
}
