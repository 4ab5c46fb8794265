// `tilegrad pathtrace gradcheck`: the gradient of a fixed random linear loss sum(w * image) w.r.t. every
// parameter of the chosen spheres: AD on the chosen device/strategy (interior + boundary) and the float64
// CPU reference (interior and boundary apart) against central finite differences of float64 renders with
// common random numbers (the same sampler at theta +- h).
#include <cmath>
#include <cstdio>
#include <random>

#include "cmd_pathtrace_common.h"
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/reference.h"

namespace tilegrad::cli::pathtrace {
namespace {

struct GradcheckArgs {
  SceneOptions scene;
  GradientOptions gradient;
  std::vector<int> spheres;
  float step = 0.01f;
};

const char* kParamNames[pathtracer::kSphereParams] = {"center.x", "center.y", "center.z", "radius",
                                                     "albedo.r", "albedo.g", "albedo.b", "emission.r",
                                                     "emission.g", "emission.b"};

void run_gradcheck(GradcheckArgs a) {
  if (a.scene.width == 0 && a.scene.height == 0) a.scene.width = a.scene.height = 64;
  const pathtracer::Scene scene = a.scene.load();
  const pathtracer::RenderSettings rs = a.scene.settings();
  const pathtracer::GradientSettings gs = a.gradient.settings();
  const std::size_t pixels = static_cast<std::size_t>(scene.camera.width) * scene.camera.height * 3;
  // A smooth random weight field: edges then add up coherently, so finite differences see them.
  std::vector<float> w(pixels);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  const int W = scene.camera.width, H = scene.camera.height;
  for (int c = 0; c < 3; ++c) {
    const float fx = 6.0f * dist(rng) / W, fy = 6.0f * dist(rng) / H, px = 6.3f * dist(rng), py = 6.3f * dist(rng);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        w[(static_cast<std::size_t>(y) * W + x) * 3 + c] = 0.5f + std::sin(fx * x + px) * std::cos(fy * y + py);
  }

  pathtracer::Renderer renderer(a.scene.parsed_device());
  renderer.set_scene(scene);
  Buffer<float> d_image = Buffer<float>::from(w, renderer.device());
  Buffer<float> d_params(scene.num_params(), renderer.device());
  const pathtracer::BackwardStats stats = renderer.backward(rs, gs, d_image.cview(), d_params.view());
  const std::vector<float> ad = d_params.to_vector();

  const auto sd = pathtracer::scene_cast<double>(scene);
  const std::vector<double> wd(w.begin(), w.end());
  const auto ref = pathtracer::reference_gradient(sd, rs, gs, wd);
  auto loss = [&](const pathtracer::SceneT<double>& s) {
    const std::vector<double> img = pathtracer::reference_render(s, rs);
    double sum = 0;
    for (std::size_t i = 0; i < img.size(); ++i) sum += wd[i] * img[i];
    return sum;
  };

  std::vector<int> spheres = a.spheres;
  if (spheres.empty())
    for (std::size_t i = 0; i < scene.spheres.size(); ++i) spheres.push_back(static_cast<int>(i));
  std::printf("gradcheck %s: %dx%d, %d spp, %s, %s on %s; FD step %.3g (x radius for geometry)\n",
              a.scene.scene.c_str(), scene.camera.width, scene.camera.height, rs.spp,
              rs.soft ? "soft" : pathtracer::to_string(rs.integrator), to_string(stats.strategy),
              to_string(renderer.device()), a.step);
  std::printf("%6s %-10s %13s %13s %13s %13s %13s %9s\n", "sphere", "param", "interior", "boundary", "ref total",
              "AD (device)", "FD", "rel err");
  for (int s : spheres) {
    TG_CHECK_ARG(s >= 0 && static_cast<std::size_t>(s) < scene.spheres.size(), "gradcheck: --spheres: no sphere ", s);
    for (int k = 0; k < pathtracer::kSphereParams; ++k) {
      const std::size_t i = static_cast<std::size_t>(s) * pathtracer::kSphereParams + k;
      const double x = sd.spheres[s].param(k);
      // Geometry: a fraction of the radius; albedo and emission: a fraction of their scale.
      const double h = k <= pathtracer::kRadius ? a.step * sd.spheres[s].radius : a.step * std::fmax(std::fabs(x), 0.1);
      // Central differences, one-sided at the edge of the valid range (albedo in [0, 1], emission >= 0).
      const double lo = k >= pathtracer::kAlbedoR ? 0.0 : -1e30, hi = k >= pathtracer::kEmissionR || k < pathtracer::kAlbedoR ? 1e30 : 1.0;
      const double xp = std::fmin(x + h, hi), xm = std::fmax(x - h, lo);
      auto plus = sd, minus = sd;
      plus.spheres[s].set_param(k, xp);
      minus.spheres[s].set_param(k, xm);
      const double fd = (loss(plus) - loss(minus)) / (xp - xm);
      const double total = ref.interior[i] + ref.boundary[i];
      const double rel = std::fabs(ad[i] - fd) / std::fmax(std::fabs(fd), 1e-3 * (std::fabs(fd) + std::fabs(total)) + 1e-12);
      std::printf("%6d %-10s %13.5e %13.5e %13.5e %13.5e %13.5e %9.2e\n", s, kParamNames[k], ref.interior[i],
                  ref.boundary[i], total, double(ad[i]), fd, rel);
    }
  }
  std::printf("FD of a hard-edged render counts the samples that cross an edge between theta - h and theta + h:\n"
              "it converges to interior + boundary as h shrinks and spp grows; soft visibility (--soft) is smooth.\n");
}

}  // namespace

void add_gradcheck_command(CLI::App& pathtrace) {
  auto a = std::make_shared<GradcheckArgs>();
  auto* cmd = pathtrace.add_subcommand(
      "gradcheck", "Compare AD gradients (interior, boundary, device strategy) with finite differences in float64");
  a->scene.add_scene_flags(*cmd);
  a->scene.add_render_flags(*cmd);
  a->gradient.add_flags(*cmd);
  cmd->add_option("--spheres", a->spheres, "Sphere indices to check (default: all)");
  cmd->add_option("--fd-step", a->step, "Finite-difference step: fraction of the radius (geometry) or of the value")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->callback([a] { run_gradcheck(*a); });
}

}  // namespace tilegrad::cli::pathtrace
