// `tilegrad pathtrace optimize`: inverse rendering with Adam: a named preset or a truth/initial scene pair;
// prints the loss per iteration with a progress bar, writes the image sequence and the recovered scene.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cmd_pathtrace_common.h"
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/optimize.h"
#include "tilegrad/pathtracer/scene_io.h"

namespace tilegrad::cli::pathtrace {
namespace {

struct OptimizeArgs {
  std::string preset;
  std::string truth, initial;
  std::vector<std::string> params = {"center"};
  std::vector<int> spheres;
  SceneOptions scene;
  GradientOptions gradient;
  int iterations = 0;
  float lr = 0, lr_final = 0;
  std::string integrator = "primary";
  int spp = 0;
  std::string out;
  int every = 10;
  bool check = false;
};

std::string progress_bar(int done, int total) {
  constexpr int kWidth = 24;
  const int filled = total > 0 ? done * kWidth / total : kWidth;
  return "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "]";
}

pathtracer::Preset custom_problem(const OptimizeArgs& a) {
  TG_CHECK_ARG(!a.truth.empty() && !a.initial.empty(), "optimize: give --preset, or both --truth and --init");
  pathtracer::Preset p;
  p.name = "custom";
  p.description = a.truth + " from " + a.initial;
  p.truth = pathtracer::scene_from_spec(a.truth, a.scene.width, a.scene.height);
  p.problem.initial = pathtracer::scene_from_spec(a.initial, a.scene.width, a.scene.height);
  TG_CHECK_ARG(p.truth.spheres.size() == p.problem.initial.spheres.size(), "optimize: ", a.truth, " has ",
               p.truth.spheres.size(), " spheres but ", a.initial, " has ", p.problem.initial.spheres.size());
  p.problem.mask = pathtracer::ParamMask::none(p.truth.spheres.size());
  std::vector<int> spheres = a.spheres;
  if (spheres.empty())
    for (std::size_t i = 0; i < p.truth.spheres.size(); ++i) spheres.push_back(static_cast<int>(i));
  for (const std::string& g : a.params)
    for (int s : spheres) {
      TG_CHECK_ARG(s >= 0 && static_cast<std::size_t>(s) < p.truth.spheres.size(), "optimize: --spheres: no sphere ", s);
      p.problem.mask.enable(static_cast<std::size_t>(s), pathtracer::parse_param_group(g));
    }
  p.problem.render.integrator = pathtracer::parse_integrator(a.integrator);
  p.problem.render.spp = 4;
  return p;
}

void run_optimize(const OptimizeArgs& a) {
  pathtracer::Preset p = a.preset.empty() ? custom_problem(a)
                                          : pathtracer::make_preset(a.preset, a.scene.width, a.scene.height);
  pathtracer::OptimizeProblem& pb = p.problem;
  pb.gradient = a.gradient.settings();
  if (a.iterations > 0) pb.adam.iterations = a.iterations;
  if (a.lr > 0) pb.adam.lr = a.lr;
  if (a.lr_final > 0) pb.adam.lr_final = a.lr_final;
  if (a.spp > 0) pb.render.spp = a.spp;
  pathtracer::Renderer renderer(a.scene.parsed_device());
  pathtracer::render_target(renderer, p);
  const int w = p.truth.camera.width, h = p.truth.camera.height;
  if (!a.out.empty()) {
    std::filesystem::create_directories(a.out);
    write_image(a.out + "/target.png", pb.target, w, h);
  }
  std::printf("optimize %s: %s\n  %dx%d, %d spp, %s, %zu parameters, %s%s, Adam lr %.3g -> %.3g, %d iterations, %s\n",
              p.name.c_str(), p.description.c_str(), w, h, pb.render.spp, pathtracer::to_string(pb.render.integrator),
              pb.mask.count(), to_string(pb.gradient.strategy),
              pb.gradient.boundary ? (pb.gradient.interior ? ", interior + boundary" : ", boundary only")
                                   : ", interior only",
              pb.adam.lr, pb.adam.lr_final, pb.adam.iterations, to_string(renderer.device()));
  std::ostringstream csv;
  csv << "iteration,loss,error\n";
  const int total = pb.adam.iterations;
  const pathtracer::Scene result = pathtracer::optimize(renderer, pb, [&](const pathtracer::IterationInfo& it) {
    const double err = pathtracer::recovery_error(p.truth, *it.scene, pb.mask);
    std::printf("  iter %4d/%d  loss %.4e  error %7.3f%%  %s\n", it.iteration + 1, total, it.loss,
                100.0 * err, progress_bar(it.iteration + 1, total).c_str());
    std::fflush(stdout);
    csv << it.iteration << "," << it.loss << "," << err << "\n";
    if (!a.out.empty() && (it.iteration % a.every == 0 || it.iteration + 1 == total)) {
      char name[64];
      std::snprintf(name, sizeof(name), "/iter_%04d.png", it.iteration);
      write_image(a.out + name, to_vector(it.image), w, h);
    }
  });
  const double err = pathtracer::recovery_error(p.truth, result, pb.mask);
  const bool ok = err <= p.tolerance;
  std::printf("recovered within %.3f%% (centres, radii: of the true radius; emission: of the true emission) "
              "(tolerance %.1f%%): %s\n",
              100.0 * err, 100.0 * p.tolerance, ok ? "yes" : "NO");
  for (std::size_t i = 0; i < result.spheres.size(); ++i) {
    const auto &t = p.truth.spheres[i], &r = result.spheres[i];
    std::printf("  sphere %zu: centre (%.4f, %.4f, %.4f) radius %.4f   truth (%.4f, %.4f, %.4f) radius %.4f\n", i,
                r.center[0], r.center[1], r.center[2], r.radius, t.center[0], t.center[1], t.center[2], t.radius);
    if (pb.mask.active[i * pathtracer::kSphereParams + pathtracer::kEmissionR] ||
        pb.mask.active[i * pathtracer::kSphereParams + pathtracer::kEmissionG] ||
        pb.mask.active[i * pathtracer::kSphereParams + pathtracer::kEmissionB])
      std::printf("            emission (%.4f, %.4f, %.4f)   truth (%.4f, %.4f, %.4f)\n", r.emission[0], r.emission[1],
                  r.emission[2], t.emission[0], t.emission[1], t.emission[2]);
  }
  if (!a.out.empty()) {
    pathtracer::save_scene(a.out + "/recovered.json", result);
    std::ofstream(a.out + "/loss.csv") << csv.str();
    std::printf("wrote %s/{target.png, iter_*.png, recovered.json, loss.csv}\n", a.out.c_str());
  }
  if (a.check && !ok) throw CLI::RuntimeError(3);
}

}  // namespace

void add_optimize_command(CLI::App& pathtrace) {
  auto a = std::make_shared<OptimizeArgs>();
  auto* cmd = pathtrace.add_subcommand(
      "optimize", "Recover sphere parameters from a target image rendered from a hidden ground truth (Adam on L2)");
  cmd->add_option("--preset", a->preset,
                  "Named problem: shaded-center, emissive-radius (needs the boundary term), overlap-centers, "
                  "dark-light (emission from 0; needs the dormant lights)")
      ->check(CLI::IsMember(pathtracer::preset_names()));
  cmd->add_option("--truth", a->truth, "Without --preset: the ground-truth scene (file or builtin:NAME)");
  cmd->add_option("--init", a->initial, "Without --preset: the starting scene (same spheres, perturbed)");
  cmd->add_option("--params", a->params, "Without --preset: parameter groups to optimise: center radius albedo emission")
      ->capture_default_str();
  cmd->add_option("--spheres", a->spheres, "Without --preset: indices of the spheres to optimise (default: all)");
  cmd->add_option("--integrator", a->integrator, "Without --preset: primary, direct or path")
      ->check(CLI::IsMember({"primary", "direct", "path"}))
      ->capture_default_str();
  cmd->add_option("--width", a->scene.width, "Image width (rescales the camera; needs --height; default 128)")
      ->check(checks::positive());
  cmd->add_option("--height", a->scene.height, "Image height (rescales the camera; needs --width; default 128)")
      ->check(checks::positive());
  cmd->add_option("--device", a->scene.device, "cpu, cuda, or auto (cuda when available)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  a->gradient.add_flags(*cmd);
  cmd->add_option("--iterations", a->iterations, "Adam iterations (default 200)")->check(checks::positive());
  cmd->add_option("--lr", a->lr, "First learning rate (default 0.03; dark-light 1)")->check(checks::positive());
  cmd->add_option("--lr-final", a->lr_final, "Last learning rate, exponential decay (default 0.01)")
      ->check(checks::positive());
  cmd->add_option("--spp", a->spp, "Samples per pixel of the target and of every iteration (default 4)")
      ->check(checks::positive());
  cmd->add_option("--out", a->out, "Folder for target.png, iter_NNNN.png, recovered.json and loss.csv");
  cmd->add_option("--every", a->every, "Write every N-th iteration's image")->check(checks::positive())->capture_default_str();
  cmd->add_flag("--check", a->check,
                "Exit with status 3 unless the parameters are recovered within 1% (of the radius; of the emission)");
  cmd->callback([a] { run_optimize(*a); });
}

}  // namespace tilegrad::cli::pathtrace
