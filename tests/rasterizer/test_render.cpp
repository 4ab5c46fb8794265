// Rendering on every backend: one Gaussian against the analytic 2D Gaussian, compositing order, culling, the
// compositing thresholds, degenerate scenes, the accumulation modes, and API errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "backend_test.h"
#include "scenes.h"
#include "tilegrad/rasterizer/rasterizer.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

class Render : public test::BackendTest {};

Gaussians single(Device device, float x, float y, float z, float scale, float logit, std::array<float, 3> rgb) {
  test::HostScene<float> s;
  s.count = 1;
  s.means = {x, y, z};
  s.log_scales = {std::log(scale), std::log(scale), std::log(scale)};
  s.quats = {1, 0, 0, 0};
  s.opacity_logits = {logit};
  s.colors = {rgb[0], rgb[1], rgb[2]};
  s.sh = {0, 0, 0};
  return test::to_gaussians(s, device);
}

}  // namespace

TEST_P(Render, SingleGaussianMatchesTheAnalyticImage) {
  const Camera cam = test::test_camera(64, 48, 2.5f, -1.5f);
  const float x = 0.3f, y = -0.2f, z = 4.0f, s = 0.15f;
  Gaussians g = single(device(), x, y, z, s, 0.5f, {0.9f, 0.4f, 0.2f});
  RasterSettings settings;
  settings.thresholds = Thresholds::none();
  Rasterizer r(device());
  const auto out = r.forward(g.view(), cam, settings);
  const auto img = out.image.to_vector();
  const double u = cam.fx * x / z + cam.cx, v = cam.fy * y / z + cam.cy;
  // EWA: an isotropic Gaussian of std s at (x, y, z) has the screen covariance s^2 J J^T + blur I with the
  // pinhole Jacobian J = [[fx/z, 0, -fx x/z^2], [0, fy/z, -fy y/z^2]].
  const double blur = 0.3f, fx = cam.fx, fy = cam.fy, s2 = double(s) * s;
  const double ca = s2 * fx * fx / (z * z) * (1 + double(x) * x / (z * z)) + blur;
  const double cb = s2 * fx * fy * x * y / (double(z) * z * z * z);
  const double cc = s2 * fy * fy / (z * z) * (1 + double(y) * y / (z * z)) + blur;
  const double det = ca * cc - cb * cb;
  const double opacity = 1 / (1 + std::exp(-0.5));
  double worst = 0;
  for (int py = 0; py < 48; ++py)
    for (int px = 0; px < 64; ++px) {
      const double dx = px + 0.5 - u, dy = py + 0.5 - v;
      const double alpha = opacity * std::exp(-0.5 * (cc * dx * dx - 2 * cb * dx * dy + ca * dy * dy) / det);
      worst = std::max(worst, std::fabs(img[(py * 64 + px) * 3] - 0.9 * alpha));
      worst = std::max(worst, std::fabs(out.alpha.to_vector()[py * 64 + px] - alpha));
    }
  EXPECT_LT(worst, 2e-6);
  EXPECT_EQ(out.visible_gaussians(), 1u);
}

TEST_P(Render, CompositesFrontToBackWhateverTheInputOrder) {
  // Two Gaussians on the optical axis: a red one at depth 6 and a blue one at depth 3 (in front).
  auto scene = [this](bool near_first) {
    test::HostScene<float> s;
    s.count = 2;
    const std::vector<float> far_mean = {0, 0, 6}, near_mean = {0, 0, 3};
    const std::vector<float> red = {1, 0, 0}, blue = {0, 0, 1};
    for (bool near : {near_first, !near_first}) {
      s.means.insert(s.means.end(), (near ? near_mean : far_mean).begin(), (near ? near_mean : far_mean).end());
      s.colors.insert(s.colors.end(), (near ? blue : red).begin(), (near ? blue : red).end());
    }
    s.log_scales = std::vector<float>(6, std::log(0.3f));
    s.quats = {1, 0, 0, 0, 1, 0, 0, 0};
    s.opacity_logits = {0.0f, 0.0f};
    s.sh = std::vector<float>(6, 0.0f);
    return test::to_gaussians(s, device());
  };
  Gaussians a = scene(true), b = scene(false);
  const Camera cam = test::test_camera(32, 32);
  RasterSettings settings;
  settings.thresholds = Thresholds::none();
  Rasterizer r(device());
  const auto img_a = r.forward(a.view(), cam, settings).image.to_vector();
  const auto img_b = r.forward(b.view(), cam, settings).image.to_vector();
  EXPECT_EQ(img_a, img_b);
  // At the pixel nearest the centre: blue = alpha_near; red = alpha_far (1 - alpha_near), with both alphas the
  // opacity 0.5 times the Gaussian weight at that pixel (computed here independently).
  const std::size_t centre = (16 * 32 + 16) * 3;
  auto alpha_at = [&](double depth) {
    const double var_x = double(cam.fx) * cam.fx * 0.09 / (depth * depth) + 0.3;
    const double var_y = double(cam.fy) * cam.fy * 0.09 / (depth * depth) + 0.3;
    const double dx = 16.5 - cam.cx, dy = 16.5 - cam.cy;
    return 0.5 * std::exp(-0.5 * (dx * dx / var_x + dy * dy / var_y));
  };
  EXPECT_NEAR(img_a[centre + 2], alpha_at(3), 1e-6);
  EXPECT_NEAR(img_a[centre], alpha_at(6) * (1 - alpha_at(3)), 1e-6);
}

TEST_P(Render, CullsWhatCannotBeSeen) {
  test::HostScene<float> s;
  s.count = 4;
  s.means = {0, 0, -3,       // behind the camera
             40, 0, 3,       // far outside the frustum
             0, 0, NAN,      // NaN position
             0, 0, 3};       // visible, but NaN opacity
  s.log_scales = std::vector<float>(12, std::log(0.2f));
  s.quats = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  s.opacity_logits = {1, 1, 1, NAN};
  s.sh = std::vector<float>(12, 0.5f);
  Gaussians g = test::to_gaussians(s, device());
  RasterSettings settings;
  settings.background[1] = 0.25f;
  Rasterizer r(device());
  const auto out = r.forward(g.view(), test::test_camera(32, 24), settings);
  EXPECT_EQ(out.visible_gaussians(), 0u);
  EXPECT_EQ(out.instances(), 0u);
  const auto img = out.image.to_vector();
  for (std::size_t i = 0; i < img.size(); ++i) ASSERT_EQ(img[i], i % 3 == 1 ? 0.25f : 0.0f);
}

TEST_P(Render, EmptyZeroSizedAndHugeScenes) {
  Rasterizer r(device());
  Gaussians empty = Gaussians::allocate(0, 0, device());
  auto out = r.forward(empty.view(), test::test_camera(20, 10));
  EXPECT_EQ(out.image.size(), 600u);
  Camera no_pixels = test::test_camera(20, 10);
  no_pixels.width = no_pixels.height = 0;
  auto zero = r.forward(empty.view(), no_pixels);
  EXPECT_EQ(zero.image.size(), 0u);
  Gaussians one = single(device(), 0, 0, 3, 0.2f, 1.0f, {1, 1, 1});
  auto zero_one = r.forward(one.view(), no_pixels);
  EXPECT_EQ(zero_one.image.size(), 0u);
  // One Gaussian far larger than the screen: every pixel covered, nothing breaks.
  Gaussians huge = single(device(), 0, 0, 3, 50.0f, 3.0f, {0.2f, 0.6f, 1.0f});
  auto big = r.forward(huge.view(), test::test_camera(40, 30));
  const auto alpha = big.alpha.to_vector();
  for (float a : alpha) ASSERT_GT(a, 0.9f);
  const Gradients gr = r.backward(big, huge.view(), Buffer<float>::zeros(40 * 30 * 3, device()).view());
  EXPECT_EQ(gr.means.size(), 3u);
}

TEST_P(Render, BackwardRejectsBadInput) {
  auto scene = test::random_scene<float>(5, 1, 3);
  Gaussians g = test::to_gaussians(scene, device());
  Rasterizer r(device());
  const Camera cam = test::test_camera(32, 24);
  const auto out = r.forward(g.view(), cam);
  auto grad_img = Buffer<float>::zeros(32 * 24 * 3, device());
  EXPECT_THROW(r.backward(out, g.view(), Buffer<float>::zeros(10, device()).view()), InvalidArgument);
  const auto dl_good = Buffer<float>::from(test::random_floats(32 * 24 * 3, 5), device());
  const std::vector<float> before = r.backward(out, g.view(), dl_good.view()).means.to_vector();
  std::vector<float> with_nan(32 * 24 * 3, 0.0f);
  with_nan[100] = NAN;
  try {
    r.backward(out, g.view(), Buffer<float>::from(with_nan, device()).view());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("dL/dimage contains NaN"), std::string::npos) << e.what();
  }
  // An infinity in dL/dalpha is refused too, naming it; a refused call leaves nothing behind: the next backward
  // is accepted and gives the bits of the one before.
  std::vector<float> alpha_inf(32 * 24, 0.0f);
  alpha_inf[7] = -INFINITY;
  try {
    r.backward(out, g.view(), dl_good.view(), Buffer<float>::from(alpha_inf, device()).view());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("dL/dalpha contains NaN or infinite"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::bitwise_equal(r.backward(out, g.view(), dl_good.view()).means.to_vector(), before));
  g.version += 1;  // an optimiser step happened
  EXPECT_THROW(r.backward(out, g.view(), grad_img.view()), InvalidArgument);
  g.version -= 1;
  Gaussians other = test::to_gaussians(scene, device());
  EXPECT_THROW(r.backward(out, other.view(), grad_img.view()), InvalidArgument);
  EXPECT_NO_THROW(r.backward(out, g.view(), grad_img.view()));
  EXPECT_NO_THROW(r.backward(out, g.view(), grad_img.view()));  // the same context twice is fine
  // A depth gradient needs a forward that rendered depth.
  auto grad_depth = Buffer<float>::zeros(32 * 24, device());
  EXPECT_TRUE(out.depth.empty());
  try {
    r.backward(out, g.view(), grad_img.view(), {}, grad_depth.view());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("render_depth"), std::string::npos);
  }
  RasterSettings with_depth;
  with_depth.render_depth = true;
  const auto out_depth = r.forward(g.view(), cam, with_depth);
  EXPECT_EQ(out_depth.depth.size(), 32u * 24u);
  EXPECT_NO_THROW(r.backward(out_depth, g.view(), grad_img.view(), {}, grad_depth.view()));
}

TEST_P(Render, BackwardFindsANonFiniteValueAnywhereInALargeImage) {
  // The check strides over dL/d* with a bounded grid: at 1024x768 dL/dimage (2.4 M floats) takes several strides of
  // the GPU's grid, so the first, a middle and the last value, and the last of dL/dalpha, must each be found.
  auto scene = test::random_scene<float>(5, 1, 3);
  Gaussians g = test::to_gaussians(scene, device());
  Rasterizer r(device());
  const Camera cam = test::test_camera(1024, 768);
  const auto out = r.forward(g.view(), cam);
  const std::size_t pixels = 1024 * 768;
  for (std::size_t at : {std::size_t(0), 3 * pixels / 2 + 1, 3 * pixels - 1}) {
    std::vector<float> dl(3 * pixels, 0.0f);
    dl[at] = at % 2 ? INFINITY : NAN;
    try {
      r.backward(out, g.view(), Buffer<float>::from(dl, device()).view());
      ADD_FAILURE() << "a non-finite value at " << at << " of dL/dimage was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("dL/dimage contains NaN"), std::string::npos) << e.what();
    }
  }
  std::vector<float> alpha(pixels, 0.0f);
  alpha[pixels - 1] = NAN;
  const auto zeros = Buffer<float>::zeros(3 * pixels, device());
  EXPECT_THROW(r.backward(out, g.view(), zeros.view(), Buffer<float>::from(alpha, device()).view()), InvalidArgument);
  alpha[pixels - 1] = 0.0f;
  EXPECT_NO_THROW(r.backward(out, g.view(), zeros.view(), Buffer<float>::from(alpha, device()).view()));
}

TEST_P(Render, ForwardRejectsBadInput) {
  auto scene = test::random_scene<float>(3, 2, 4);
  Gaussians g = test::to_gaussians(scene, device());
  Rasterizer r(device());
  Camera cam = test::test_camera(16, 16);
  RasterSettings s;
  s.sh_degree = 3;
  EXPECT_THROW(r.forward(g.view(), cam, s), InvalidArgument);
  EXPECT_NO_THROW(r.forward(g.view(), cam));
  cam.fx = -1;
  EXPECT_THROW(r.forward(g.view(), cam), InvalidArgument);
  GaussiansView v = g.view();
  v.quats = v.quats.subview(0, 8);
  try {
    r.forward(v, test::test_camera(16, 16));
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("quats"), std::string::npos);
  }
}

TEST_P(Render, FaintFragmentsAreSkippedAndClampedAlphaHasNoOpacityGradient) {
  // Opacity below 1/255: nothing drawn. Opacity near 1: alpha clamped to 0.99, zero opacity gradient.
  auto scene = test::random_scene<float>(1, 0, 11, true);
  scene.means = {0, 0, 4};
  scene.log_scales = {0, 0, 0};  // wide enough that the pixels next to the centre see weight > 0.99
  scene.opacity_logits = {-7.0f};  // sigmoid = 0.0009 < 1/255
  Rasterizer r(device());
  const Camera cam = test::test_camera(32, 32);
  Gaussians faint = test::to_gaussians(scene, device());
  for (float a : r.forward(faint.view(), cam).alpha.to_vector()) ASSERT_EQ(a, 0.0f);
  scene.opacity_logits = {9.0f};  // sigmoid = 0.9999 > 0.99
  Gaussians solid = test::to_gaussians(scene, device());
  const auto out = r.forward(solid.view(), cam);
  const auto alpha = out.alpha.to_vector();
  EXPECT_FLOAT_EQ(*std::max_element(alpha.begin(), alpha.end()), 0.99f);
  // Only the clamped pixel(s) see this Gaussian's centre; make the loss depend on the clamped pixels alone.
  std::vector<float> dl(32 * 32 * 3, 0.0f);
  for (std::size_t i = 0; i < alpha.size(); ++i)
    if (alpha[i] == 0.99f) dl[3 * i] = 1.0f;
  const auto g = r.backward(out, solid.view(), Buffer<float>::from(dl, device()).view());
  EXPECT_EQ(g.opacity_logits.to_vector()[0], 0.0f);
  EXPECT_GT(std::fabs(g.colors.to_vector()[0]), 0.0f);
}

TEST_P(Render, CompositingStopsOnceOpaque) {
  // Forty nearly opaque Gaussians stacked on the axis: after a few the transmittance is below 1e-4, and the
  // Gaussians behind change nothing.
  test::HostScene<float> s;
  s.count = 40;
  for (int i = 0; i < 40; ++i) {
    s.means.insert(s.means.end(), {0.0f, 0.0f, 3.0f + 0.1f * i});
    s.log_scales.insert(s.log_scales.end(), 3, std::log(2.0f));
    s.quats.insert(s.quats.end(), {1, 0, 0, 0});
    s.opacity_logits.push_back(4.0f);
    s.colors.insert(s.colors.end(), {float(i % 2), 0.5f, 1.0f - float(i % 2)});
    s.sh.insert(s.sh.end(), 3, 0.0f);
  }
  Rasterizer r(device());
  const Camera cam = test::test_camera(16, 16);
  const auto full = r.forward(test::to_gaussians(s, device()).view(), cam).image.to_vector();
  s.colors[3 * 39] = 0.123f;  // recolour the farthest one
  const auto changed = r.forward(test::to_gaussians(s, device()).view(), cam).image.to_vector();
  EXPECT_EQ(full, changed);
}

TEST_P(Render, AccumulationModesAgreeAndOwnedRepeatsBitwise) {
  auto scene = test::random_scene<float>(40, 2, 21);
  Gaussians g = test::to_gaussians(scene, device());
  Rasterizer r(device());
  const auto out = r.forward(g.view(), test::rotated_camera(64, 48, 0.2f));
  std::vector<float> dl = test::random_floats(64 * 48 * 3, 3);
  auto dl_buf = Buffer<float>::from(dl, device());
  const auto owned = r.backward(out, g.view(), dl_buf.view(), {}, {}, {Accumulation::Owned});
  for (Accumulation a : {Accumulation::Atomic, Accumulation::WarpAggregated, Accumulation::SortReduce}) {
    const auto other = r.backward(out, g.view(), dl_buf.view(), {}, {}, {a});
    EXPECT_LT(test::max_relative_error(other.means.to_vector(), owned.means.to_vector(), 1e-3), 1e-4) << to_string(a);
    EXPECT_LT(test::max_relative_error(other.sh.to_vector(), owned.sh.to_vector(), 1e-3), 1e-4) << to_string(a);
  }
  // Owned is bitwise reproducible.
  const auto again = r.backward(out, g.view(), dl_buf.view(), {}, {}, {Accumulation::Owned});
  EXPECT_TRUE(test::bitwise_equal(again.means.to_vector(), owned.means.to_vector()));
  EXPECT_TRUE(test::bitwise_equal(again.quats.to_vector(), owned.quats.to_vector()));
}

// The deterministic modes' promise: the same bits whatever the order of the Gaussians (their depths distinct;
// equal depths composite in index order), SortReduce's equal to Owned's.
TEST_P(Render, DeterministicGradientsDoNotDependOnTheOrderOfTheGaussians) {
  const auto scene = test::dense_scene(test::scaled(3000), 2, 96, 31);
  std::vector<std::size_t> order(scene.count);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::shuffle(order.begin(), order.end(), std::mt19937_64(8));
  // Gaussian i of the shuffled scene is Gaussian order[i] of the scene.
  auto permute = [&](const std::vector<float>& v) {
    std::vector<float> out(v.size());
    const std::size_t width = v.size() / scene.count;
    for (std::size_t i = 0; i < scene.count; ++i) std::copy_n(v.begin() + order[i] * width, width, out.begin() + i * width);
    return out;
  };
  test::HostScene<float> shuffled = scene;
  for (auto [dst, src] : {std::pair{&shuffled.means, &scene.means}, {&shuffled.log_scales, &scene.log_scales},
                          {&shuffled.quats, &scene.quats}, {&shuffled.opacity_logits, &scene.opacity_logits},
                          {&shuffled.sh, &scene.sh}})
    *dst = permute(*src);
  const Camera cam = test::test_camera(96, 72);
  const auto dl = Buffer<float>::from(test::random_floats(96 * 72 * 3, 4), device());
  Rasterizer r(device());
  Gaussians a = test::to_gaussians(scene, device()), b = test::to_gaussians(shuffled, device());
  const auto fa = r.forward(a.view(), cam), fb = r.forward(b.view(), cam);
  EXPECT_TRUE(test::bitwise_equal(fa.image.to_vector(), fb.image.to_vector()));
  for (Accumulation mode : {Accumulation::Owned, Accumulation::SortReduce}) {
    const Gradients ga = r.backward(fa, a.view(), dl.view(), {}, {}, {mode});
    const Gradients gb = r.backward(fb, b.view(), dl.view(), {}, {}, {mode});
    for (const auto& [x, y] : {std::pair{&ga.means, &gb.means}, {&ga.log_scales, &gb.log_scales},
                                {&ga.quats, &gb.quats}, {&ga.opacity_logits, &gb.opacity_logits},
                                {&ga.sh, &gb.sh}, {&ga.mean2d, &gb.mean2d}}) {
      EXPECT_TRUE(test::bitwise_equal(permute(x->to_vector()), y->to_vector())) << to_string(mode);
    }
  }
}

TG_BACKEND_TESTS(Render);
