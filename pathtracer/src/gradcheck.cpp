// Gradient check (see gradcheck.h): device gradient, float64 reference terms, finite differences with the
// sampler held fixed, and the per-entry criterion.
#include "tilegrad/pathtracer/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/reference.h"

namespace tilegrad::pathtracer {
namespace {

// A smooth random weight field, fixed (seeded): edges then add up coherently, so finite differences see them.
std::vector<float> smooth_weights(int w, int h) {
  std::vector<float> out(static_cast<std::size_t>(w) * h * 3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (int c = 0; c < 3; ++c) {
    const float fx = 6.0f * dist(rng) / w, fy = 6.0f * dist(rng) / h, px = 6.3f * dist(rng), py = 6.3f * dist(rng);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        out[(static_cast<std::size_t>(y) * w + x) * 3 + c] = 0.5f + std::sin(fx * x + px) * std::cos(fy * y + py);
  }
  return out;
}

}  // namespace

ParamKind param_kind(int param) {
  return param <= kRadius ? ParamKind::Geometry : (param < kEmissionR ? ParamKind::Albedo : ParamKind::Emission);
}

const char* param_name(int param) {
  static const char* kNames[kSphereParams] = {"center.x", "center.y", "center.z", "radius",     "albedo.r",
                                              "albedo.g", "albedo.b", "emission.r", "emission.g", "emission.b"};
  TG_CHECK_ARG(param >= 0 && param < kSphereParams, "param_name: no parameter ", param);
  return kNames[param];
}

double default_gradcheck_step(const RenderSettings& settings) { return settings.soft ? 1e-4 : 1e-2; }
double default_gradcheck_tolerance(const RenderSettings& settings) { return settings.soft ? 1e-4 : 5e-2; }

const GradcheckEntry* GradcheckReport::worst() const {
  const GradcheckEntry* w = nullptr;
  for (const GradcheckEntry& e : entries)
    if (!w || e.error > w->error) w = &e;
  return w;
}

GradcheckReport gradcheck(Renderer& renderer, const RenderSettings& rs, const GradientSettings& gs,
                          const GradcheckOptions& opt) {
  TG_CHECK_ARG(std::isfinite(opt.step) && opt.step >= 0.0, "gradcheck: the step must be >= 0 (got ", opt.step, ")");
  TG_CHECK_ARG(std::isfinite(opt.tolerance) && opt.tolerance >= 0.0,
               "gradcheck: the tolerance must be >= 0 (got ", opt.tolerance, ")");
  const Scene& scene = renderer.scene();
  std::vector<int> spheres = opt.spheres;
  if (spheres.empty())
    for (std::size_t i = 0; i < scene.spheres.size(); ++i) spheres.push_back(static_cast<int>(i));
  for (int s : spheres)
    TG_CHECK_ARG(s >= 0 && static_cast<std::size_t>(s) < scene.spheres.size(), "gradcheck: no sphere ", s,
                 " (the scene has ", scene.spheres.size(), ")");

  const int W = scene.camera.width, H = scene.camera.height;
  const std::vector<float> w = smooth_weights(W, H);
  Buffer<float> d_image = Buffer<float>::from(w, renderer.device());
  Buffer<float> d_params(scene.num_params(), renderer.device());
  GradcheckReport report;
  report.step = opt.step > 0.0 ? opt.step : default_gradcheck_step(rs);
  report.tolerance = opt.tolerance > 0.0 ? opt.tolerance : default_gradcheck_tolerance(rs);
  report.strategy = renderer.backward(rs, gs, d_image.cview(), d_params.view()).strategy;
  const std::vector<float> ad = d_params.to_vector();

  const auto sd = scene_cast<double>(scene);
  const std::vector<double> wd(w.begin(), w.end());
  const ReferenceGradient<double> ref = reference_gradient(sd, rs, gs, wd);
  // Every sphere stays in its light list, whatever the step (see gradcheck.h).
  const LightSets sets = light_sets(sd, true);
  auto loss = [&](const SceneT<double>& s) {
    const std::vector<double> img = reference_render(s, rs, &sets);
    double sum = 0;
    for (std::size_t i = 0; i < img.size(); ++i) sum += wd[i] * img[i];
    return sum;
  };
  double min_radius = INFINITY;
  for (const auto& s : sd.spheres) min_radius = std::min(min_radius, s.radius);

  for (int s : spheres)
    for (int k = 0; k < kSphereParams; ++k) {
      GradcheckEntry e;
      e.sphere = s;
      e.param = k;
      const std::size_t i = static_cast<std::size_t>(s) * kSphereParams + k;
      const double x = sd.spheres[s].param(k);
      const double h = report.step * (param_kind(k) == ParamKind::Geometry ? min_radius : std::fmax(std::fabs(x), 0.1));
      // Central differences, one-sided at the ends of the valid range (albedo in [0, 1], emission >= 0): there
      // the derivative from inside the range is the one that exists.
      const double lo = k >= kAlbedoR ? 0.0 : -INFINITY, hi = k >= kAlbedoR && k < kEmissionR ? 1.0 : INFINITY;
      const double xp = std::fmin(x + h, hi), xm = std::fmax(x - h, lo);
      e.one_sided = x + h > hi || x - h < lo;
      auto plus = sd, minus = sd;
      plus.spheres[s].set_param(k, xp);
      minus.spheres[s].set_param(k, xm);
      e.fd = (loss(plus) - loss(minus)) / (xp - xm);
      e.interior = ref.interior[i];
      e.boundary = ref.boundary[i];
      e.device = ad[i];
      double& largest = report.largest[static_cast<int>(param_kind(k))];
      largest = std::fmax(largest, std::fabs(e.fd));
      report.entries.push_back(e);
    }
  for (GradcheckEntry& e : report.entries) {
    const double largest = report.largest[static_cast<int>(param_kind(e.param))];
    const double diff = std::fabs(e.device - e.fd);
    // All finite differences of a kind zero: any difference is an error (measured absolutely).
    e.error = largest > 0.0 ? diff / largest : diff;
    e.pass = std::isfinite(e.device) && e.error <= report.tolerance;
    report.failed += e.pass ? 0 : 1;
  }
  return report;
}

}  // namespace tilegrad::pathtracer
