// Whole-pipeline gradients of the CPU reference in float64 against central finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "cpu/pipeline.h"
#include "scenes.h"
#include "test_support.h"
#include "tilegrad/rasterizer/rasterizer.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

struct Case {
  const char* name;
  std::size_t count;
  int sh_degree;
  bool colors;
  Camera camera;
  bool antialiased;
  bool alpha_depth_losses;
};

struct LossWeights {
  std::vector<double> image, alpha, depth;
};

namespace cpu = cpu_backend;

ParamArrays<double> params_of(test::HostScene<double>& s) {
  const bool colors = !s.colors.empty();
  return {s.count,          s.sh_degree,           s.means.data(), s.log_scales.data(), s.quats.data(),
          s.opacity_logits.data(), colors ? nullptr : s.sh.data(), colors ? s.colors.data() : nullptr};
}

struct Rendered {
  cpu::State<double> state;
  std::vector<double> image, alpha, depth;
};

void render(test::HostScene<double>& s, const ProjectionCamera& cam, const RasterSettings& settings, Rendered& r) {
  const std::size_t pixels = std::size_t(cam.width) * cam.height;
  r.image.assign(pixels * 3, 0.0);
  r.alpha.assign(pixels, 0.0);
  r.depth.assign(pixels, 0.0);
  cpu::forward(params_of(s), cam, settings, r.state, {r.image.data(), r.alpha.data(), r.depth.data()});
}

double loss(test::HostScene<double>& s, const ProjectionCamera& cam, const RasterSettings& settings,
            const LossWeights& w) {
  Rendered r;
  render(s, cam, settings, r);
  double l = 0;
  for (std::size_t i = 0; i < r.image.size(); ++i) l += w.image[i] * r.image[i];
  for (std::size_t i = 0; i < w.alpha.size(); ++i) l += w.alpha[i] * r.alpha[i] + w.depth[i] * r.depth[i];
  return l;
}

// The gradients of every parameter group (sh or colours, the other left empty).
struct Grads {
  std::vector<double> means, log_scales, quats, opacity_logits, sh, colors, mean2d;
};

void check_gradients(const Case& c) {
  SCOPED_TRACE(c.name);
  auto scene = test::random_scene<double>(c.count, c.sh_degree, 1000 + c.count, c.colors);
  RasterSettings settings;
  settings.thresholds = Thresholds::none();
  settings.antialiased = c.antialiased;
  settings.background[0] = 0.3f;
  settings.background[2] = 0.7f;
  const ProjectionCamera cam = make_projection_camera(c.camera);
  const std::size_t pixels = std::size_t(c.camera.width) * c.camera.height;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  LossWeights w;
  for (std::size_t i = 0; i < pixels * 3; ++i) w.image.push_back(u(rng));
  if (c.alpha_depth_losses)
    for (std::size_t i = 0; i < pixels; ++i) {
      w.alpha.push_back(u(rng));
      w.depth.push_back(0.1 * u(rng));
    }

  Rendered r;
  render(scene, cam, settings, r);
  ASSERT_EQ(r.state.visible, c.count) << "every test Gaussian should be visible";
  const std::size_t n = scene.count;
  Grads g;
  g.means.resize(n * 3);
  g.log_scales.resize(n * 3);
  g.quats.resize(n * 4);
  g.opacity_logits.resize(n);
  (c.colors ? g.colors : g.sh).resize(c.colors ? n * 3 : scene.sh.size());
  g.mean2d.resize(n * 2);
  cpu::backward(params_of(scene), r.state,
                {w.image.data(), c.alpha_depth_losses ? w.alpha.data() : nullptr,
                 c.alpha_depth_losses ? w.depth.data() : nullptr},
                Accumulation::Owned,
                {g.means.data(), g.log_scales.data(), g.quats.data(), g.opacity_logits.data(),
                 c.colors ? nullptr : g.sh.data(), c.colors ? g.colors.data() : nullptr, g.mean2d.data(), nullptr});

  const char* names[] = {"means", "log_scales", "quats", "opacity_logits", "sh", "colors"};
  std::vector<std::vector<double>*> analytic = {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh, &g.colors};
  auto groups = scene.groups();
  for (std::size_t k = 0; k < groups.size(); ++k) {
    std::vector<double>& values = *groups[k];
    if (values.empty() || (k == 4 && !scene.colors.empty())) continue;
    ASSERT_EQ(analytic[k]->size(), values.size()) << names[k];
    std::vector<double> fd(values.size());
    double scale = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      // Five-point central difference: O(h^4) truncation, and h large enough that the rounding of a loss
      // summed over thousands of pixels stays far below the tolerance.
      const double h = 1e-4, v0 = values[i];
      auto at = [&](double x) {
        values[i] = x;
        return loss(scene, cam, settings, w);
      };
      fd[i] = (8 * (at(v0 + h) - at(v0 - h)) - (at(v0 + 2 * h) - at(v0 - 2 * h))) / (12 * h);
      values[i] = v0;
      scale = std::max(scale, std::fabs(fd[i]));
    }
    double worst = 0;
    std::size_t worst_i = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double err = std::fabs((*analytic[k])[i] - fd[i]) / std::max(std::fabs(fd[i]), 1e-3 * scale + 1e-9);
      if (err > worst) {
        worst = err;
        worst_i = i;
      }
    }
    if (std::getenv("TG_DEBUG_FD")) std::printf("%s worst %zu ad %.12g fd %.12g\n", names[k], worst_i, (*analytic[k])[worst_i], fd[worst_i]);
    EXPECT_LT(worst, 1e-5) << names[k] << " (largest |gradient| " << scale << ")";
  }
}

}  // namespace

TEST(GradientsCpu, OneGaussianShDegree0) {
  check_gradients({"one", 1, 0, false, test::test_camera(40, 32), false, false});
}

TEST(GradientsCpu, ShDegree1OffCentrePrincipalPointWithAlphaAndDepthLosses) {
  check_gradients({"sh1", 12, 1, false, test::test_camera(48, 40, 4.5f, -3.0f), false, true});
}

TEST(GradientsCpu, ShDegree2RotatedCamera) {
  check_gradients({"sh2", 10, 2, false, test::rotated_camera(48, 40, 0.35f), false, false});
}

TEST(GradientsCpu, ShDegree3Antialiased) {
  check_gradients({"sh3-aa", 8, 3, false, test::rotated_camera(40, 36, -0.25f), true, true});
}

TEST(GradientsCpu, FiftyGaussiansPrecomputedColours) {
  check_gradients({"colors", 50, 0, true, test::test_camera(48, 40, -2.0f, 1.5f), false, true});
}

