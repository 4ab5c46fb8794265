// Rendering on the CPU reference: one Gaussian against the analytic 2D Gaussian, compositing order, culling,
// degenerate scenes, and API errors.
#include <gtest/gtest.h>

#include <cmath>

#include "scenes.h"
#include "tilegrad/rasterizer/rasterizer.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

Gaussians single(float x, float y, float z, float scale, float logit, std::array<float, 3> rgb) {
  test::HostScene<float> s;
  s.count = 1;
  s.means = {x, y, z};
  s.log_scales = {std::log(scale), std::log(scale), std::log(scale)};
  s.quats = {1, 0, 0, 0};
  s.opacity_logits = {logit};
  s.colors = {rgb[0], rgb[1], rgb[2]};
  s.sh = {0, 0, 0};
  return test::to_gaussians(s, Device::Cpu);
}

}  // namespace

TEST(RenderCpu, SingleGaussianMatchesTheAnalyticImage) {
  const Camera cam = test::test_camera(64, 48, 2.5f, -1.5f);
  const float x = 0.3f, y = -0.2f, z = 4.0f, s = 0.15f;
  Gaussians g = single(x, y, z, s, 0.5f, {0.9f, 0.4f, 0.2f});
  RasterSettings settings;
  settings.thresholds = Thresholds::none();
  Rasterizer r(Device::Cpu);
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

TEST(RenderCpu, CompositesFrontToBackWhateverTheInputOrder) {
  // Two Gaussians on the optical axis: a red one at depth 6 and a blue one at depth 3 (in front).
  auto scene = [](bool near_first) {
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
    return test::to_gaussians(s, Device::Cpu);
  };
  Gaussians a = scene(true), b = scene(false);
  const Camera cam = test::test_camera(32, 32);
  RasterSettings settings;
  settings.thresholds = Thresholds::none();
  Rasterizer r(Device::Cpu);
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

TEST(RenderCpu, CullsWhatCannotBeSeen) {
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
  Gaussians g = test::to_gaussians(s, Device::Cpu);
  RasterSettings settings;
  settings.background[1] = 0.25f;
  Rasterizer r(Device::Cpu);
  const auto out = r.forward(g.view(), test::test_camera(32, 24), settings);
  EXPECT_EQ(out.visible_gaussians(), 0u);
  EXPECT_EQ(out.instances(), 0u);
  const auto img = out.image.to_vector();
  for (std::size_t i = 0; i < img.size(); ++i) ASSERT_EQ(img[i], i % 3 == 1 ? 0.25f : 0.0f);
}

TEST(RenderCpu, EmptyZeroSizedAndHugeScenes) {
  Rasterizer r(Device::Cpu);
  Gaussians empty = Gaussians::allocate(0, 0, Device::Cpu);
  auto out = r.forward(empty.view(), test::test_camera(20, 10));
  EXPECT_EQ(out.image.size(), 600u);
  Camera no_pixels = test::test_camera(20, 10);
  no_pixels.width = no_pixels.height = 0;
  auto zero = r.forward(empty.view(), no_pixels);
  EXPECT_EQ(zero.image.size(), 0u);
  Gaussians one = single(0, 0, 3, 0.2f, 1.0f, {1, 1, 1});
  auto zero_one = r.forward(one.view(), no_pixels);
  EXPECT_EQ(zero_one.image.size(), 0u);
  // One Gaussian far larger than the screen: every pixel covered, nothing breaks.
  Gaussians huge = single(0, 0, 3, 50.0f, 3.0f, {0.2f, 0.6f, 1.0f});
  auto big = r.forward(huge.view(), test::test_camera(40, 30));
  const auto alpha = big.alpha.to_vector();
  for (float a : alpha) ASSERT_GT(a, 0.9f);
  const Gradients gr = r.backward(big, huge.view(), Buffer<float>::zeros(40 * 30 * 3, Device::Cpu).view());
  EXPECT_EQ(gr.means.size(), 3u);
}

TEST(RenderCpu, BackwardRejectsBadInput) {
  auto scene = test::random_scene<float>(5, 1, 3);
  Gaussians g = test::to_gaussians(scene, Device::Cpu);
  Rasterizer r(Device::Cpu);
  const Camera cam = test::test_camera(32, 24);
  const auto out = r.forward(g.view(), cam);
  auto grad_img = Buffer<float>::zeros(32 * 24 * 3, Device::Cpu);
  EXPECT_THROW(r.backward(out, g.view(), Buffer<float>::zeros(10, Device::Cpu).view()), InvalidArgument);
  std::vector<float> with_nan(32 * 24 * 3, 0.0f);
  with_nan[100] = NAN;
  try {
    r.backward(out, g.view(), Buffer<float>::from(with_nan, Device::Cpu).view());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos);
  }
  g.version += 1;  // an optimiser step happened
  EXPECT_THROW(r.backward(out, g.view(), grad_img.view()), InvalidArgument);
  g.version -= 1;
  Gaussians other = test::to_gaussians(scene, Device::Cpu);
  EXPECT_THROW(r.backward(out, other.view(), grad_img.view()), InvalidArgument);
  EXPECT_NO_THROW(r.backward(out, g.view(), grad_img.view()));
  EXPECT_NO_THROW(r.backward(out, g.view(), grad_img.view()));  // the same context twice is fine
  // A depth gradient needs a forward that rendered depth.
  auto grad_depth = Buffer<float>::zeros(32 * 24, Device::Cpu);
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

TEST(RenderCpu, ForwardRejectsBadInput) {
  auto scene = test::random_scene<float>(3, 2, 4);
  Gaussians g = test::to_gaussians(scene, Device::Cpu);
  Rasterizer r(Device::Cpu);
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
