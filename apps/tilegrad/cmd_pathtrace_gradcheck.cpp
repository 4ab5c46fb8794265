// `tilegrad pathtrace gradcheck`: the gradient of a fixed smooth linear loss sum(w * image) w.r.t. every
// parameter of the chosen spheres: AD on the chosen device/strategy, with the float64 CPU reference's interior
// and boundary terms beside it, against finite differences of float64 renders that hold the sampler fixed
// (pathtracer/gradcheck.h). Each entry passes when its error, relative to the largest finite difference of its
// kind, is within the tolerance; the command exits with status 4 when any entry fails.
#include <cstdio>

#include "cmd_pathtrace_common.h"
#include "tilegrad/pathtracer/gradcheck.h"

namespace tilegrad::cli::pathtrace {
namespace {

struct GradcheckArgs {
  SceneOptions scene;
  GradientOptions gradient;
  pathtracer::GradcheckOptions check;
};

const char* kind_name(pathtracer::ParamKind k) {
  switch (k) {
    case pathtracer::ParamKind::Geometry: return "centre and radius";
    case pathtracer::ParamKind::Albedo: return "albedo";
    case pathtracer::ParamKind::Emission: return "emission";
  }
  return "?";
}

void run_gradcheck(GradcheckArgs a) {
  if (a.scene.width == 0 && a.scene.height == 0) a.scene.width = a.scene.height = 64;
  const pathtracer::RenderSettings rs = a.scene.settings();
  const pathtracer::GradientSettings gs = a.gradient.settings();
  pathtracer::Renderer renderer(a.scene.parsed_device());
  renderer.set_scene(a.scene.load());
  const pathtracer::GradcheckReport r = pathtracer::gradcheck(renderer, rs, gs, a.check);
  const pathtracer::Scene& scene = renderer.scene();

  std::printf("gradcheck %s: %dx%d, %d spp, %s, %s on %s, dormant lights %s\n", a.scene.scene.c_str(),
              scene.camera.width, scene.camera.height, rs.spp, rs.soft ? "soft" : pathtracer::to_string(rs.integrator),
              to_string(r.strategy), to_string(renderer.device()), gs.dormant_lights ? "on" : "off");
  std::printf("finite differences: float64 renders with the same random numbers and light lists (the sampler held\n"
              "fixed), central with step %.3g x the smallest radius (centre, radius) or x max(|value|, 0.1), one-sided\n"
              "(*) at the end of a parameter's range; err = |AD - FD| / largest |FD| of its kind; tolerance %.3g\n",
              r.step, r.tolerance);
  std::printf("%6s %-10s %12s %12s %12s %12s %12s %9s %s\n", "sphere", "param", "interior", "boundary", "ref total",
              "AD (device)", "FD", "err", "");
  for (const pathtracer::GradcheckEntry& e : r.entries)
    std::printf("%6d %-10s %12.5e %12.5e %12.5e %12.5e %12.5e%s %9.2e %s\n", e.sphere, pathtracer::param_name(e.param),
                e.interior, e.boundary, e.interior + e.boundary, e.device, e.fd, e.one_sided ? "*" : " ", e.error,
                e.pass ? "pass" : "FAIL");
  for (int k = 0; k < 3; ++k)
    std::printf("largest |FD|, %s: %.5e\n", kind_name(static_cast<pathtracer::ParamKind>(k)), r.largest[k]);
  const pathtracer::GradcheckEntry* worst = r.worst();
  std::printf("gradcheck: %s: %zu of %zu entries within %.3g of the largest entry of their kind (worst %.2e: sphere %d "
              "%s)\n",
              r.passed() ? "PASS" : "FAIL", r.entries.size() - static_cast<std::size_t>(r.failed), r.entries.size(),
              r.tolerance, worst ? worst->error : 0.0, worst ? worst->sphere : -1,
              worst ? pathtracer::param_name(worst->param) : "-");
  if (!r.passed()) throw CLI::RuntimeError(4);
}

}  // namespace

void add_gradcheck_command(CLI::App& pathtrace) {
  auto a = std::make_shared<GradcheckArgs>();
  auto* cmd = pathtrace.add_subcommand(
      "gradcheck",
      "Compare AD gradients (device strategy; float64 interior and boundary terms) with finite differences in float64; "
      "exit status 4 when an entry fails");
  a->scene.add_scene_flags(*cmd);
  a->scene.add_render_flags(*cmd);
  a->gradient.add_flags(*cmd);
  cmd->add_option("--spheres", a->check.spheres, "Sphere indices to check (default: all)");
  cmd->add_option("--fd-step", a->check.step,
                  "Finite-difference step: fraction of the smallest radius (centre, radius) or of max(|value|, 0.1) "
                  "(default: 0.01 hard edges, 1e-4 --soft)")
      ->check(checks::positive());
  cmd->add_option("--tolerance", a->check.tolerance,
                  "Largest error relative to the largest entry of its kind (default: 0.05 hard edges, 1e-4 --soft)")
      ->check(checks::non_negative());
  cmd->callback([a] { run_gradcheck(*a); });
}

}  // namespace tilegrad::cli::pathtrace
