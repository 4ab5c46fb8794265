// `tilegrad pathtrace`: the differentiable sphere path tracer (render | optimize | gradcheck), shared flags,
// and `pathtrace render`.
#include <cstdio>

#include "cmd_pathtrace_common.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/image.h"
#include "tilegrad/pathtracer/scene_io.h"

namespace tilegrad::cli::pathtrace {

void SceneOptions::add_scene_flags(CLI::App& cmd) {
  cmd.add_option("--scene", scene,
                 "Scene file (JSON, see docs/PATHTRACER.md) or builtin:NAME with NAME in emissive, shaded, overlap, "
                 "grid:N")
      ->capture_default_str();
  cmd.add_option("--width", width, "Image width in pixels (rescales the camera; needs --height)")
      ->check(checks::positive());
  cmd.add_option("--height", height, "Image height in pixels (rescales the camera; needs --width)")
      ->check(checks::positive());
  cmd.add_option("--device", device, "cpu, cuda, or auto (cuda when available)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
}

void SceneOptions::add_render_flags(CLI::App& cmd) {
  cmd.add_option("--integrator", integrator,
                 "primary (emission + unshadowed shading), direct (shadow rays to sampled lights), path (bounces)")
      ->check(CLI::IsMember({"primary", "direct", "path"}))
      ->capture_default_str();
  cmd.add_option("--depth", depth, "Path vertices for --integrator path (1..3)")->check(checks::range(1, 3))->capture_default_str();
  cmd.add_option("--spp", spp, "Samples per pixel")->check(checks::range(1, 65536))->capture_default_str();
  cmd.add_option("--seed", seed, "Sampler seed (the same seed replays the same paths)")->capture_default_str();
  cmd.add_flag("--soft", soft, "Soft visibility (smooth coverage of every sphere; primary rays, <= 16 spheres)");
  cmd.add_option("--softness", softness, "Soft visibility: edge width in world units")
      ->check(checks::positive())
      ->capture_default_str();
  cmd.add_option("--depth-softness", depth_softness, "Soft visibility: depth-order blending width in world units")
      ->check(checks::positive())
      ->capture_default_str();
}

pathtracer::Scene SceneOptions::load() const { return pathtracer::scene_from_spec(scene, width, height); }

pathtracer::RenderSettings SceneOptions::settings() const {
  pathtracer::RenderSettings s;
  s.integrator = pathtracer::parse_integrator(integrator);
  s.max_depth = depth;
  s.spp = spp;
  s.seed = seed;
  s.soft = soft;
  s.softness = softness;
  s.depth_softness = depth_softness;
  return s;
}

Device SceneOptions::parsed_device() const { return device == "auto" ? default_device() : parse_device(device); }

void GradientOptions::add_flags(CLI::App& cmd) {
  cmd.add_option("--strategy", strategy, "Accumulation strategy: atomic, warp-aggregated, sort-reduce, owned")
      ->capture_default_str();
  cmd.add_flag("--interior-only", interior_only, "Drop the boundary (edge sampling) term: AD of the samples alone");
  cmd.add_flag("--boundary-only", boundary_only, "Drop the interior term: edge sampling alone");
  cmd.add_option("--edge-density", edge_density, "Edge samples per pixel of visible silhouette length")
      ->check(checks::positive())
      ->capture_default_str();
  cmd.add_flag("--no-dormant-lights", no_dormant_lights,
               "Do not sample zero-emission spheres as lights in the backward: their emission gradient then misses "
               "the light they would cast (cheaper)");
}

pathtracer::GradientSettings GradientOptions::settings() const {
  TG_CHECK_ARG(!(interior_only && boundary_only), "--interior-only and --boundary-only exclude each other");
  pathtracer::GradientSettings g;
  g.strategy = parse_accumulation(strategy);
  g.interior = !boundary_only;
  g.boundary = !interior_only;
  g.edge_density = edge_density;
  g.dormant_lights = !no_dormant_lights;
  return g;
}

// PNG: linear radiance clamped to [0, 1] and encoded with the sRGB transfer curve; PFM: the linear floats.
void write_image(const std::string& path, const std::vector<float>& rgb, int width, int height) {
  io::Image img(width, height, 3);
  img.pixels = rgb;
  const bool pfm = path.size() >= 4 && path.compare(path.size() - 4, 4, ".pfm") == 0;
  if (pfm) {
    io::write_pfm(path, img);
  } else {
    io::write_png(path, img, /*encode_srgb=*/true);
  }
}

namespace {

struct RenderArgs {
  SceneOptions scene;
  std::string out = "pathtrace.png", pfm;
};

void run_render(const RenderArgs& a) {
  const pathtracer::Scene scene = a.scene.load();
  const pathtracer::RenderSettings settings = a.scene.settings();
  pathtracer::Renderer renderer(a.scene.parsed_device());
  renderer.set_scene(scene);
  const std::vector<float> image = renderer.render(settings);
  const int w = scene.camera.width, h = scene.camera.height;
  write_image(a.out, image, w, h);
  if (!a.pfm.empty()) write_image(a.pfm, image, w, h);
  std::printf("rendered %s: %dx%d, %zu spheres, %s, %d spp on %s -> %s%s%s\n", a.scene.scene.c_str(), w, h,
              scene.spheres.size(), settings.soft ? "soft" : pathtracer::to_string(settings.integrator), settings.spp,
              to_string(renderer.device()), a.out.c_str(), a.pfm.empty() ? "" : ", ", a.pfm.c_str());
}

}  // namespace

void add_render_command(CLI::App& pathtrace) {
  auto args = std::make_shared<RenderArgs>();
  auto* cmd = pathtrace.add_subcommand("render", "Render a scene to PNG (sRGB-encoded) and optionally PFM (linear)");
  args->scene.add_scene_flags(*cmd);
  args->scene.add_render_flags(*cmd);
  cmd->add_option("--out", args->out, "Output image: .png (sRGB, clamped to [0, 1]) or .pfm (linear floats)")
      ->capture_default_str();
  cmd->add_option("--pfm", args->pfm, "Also write the linear image as PFM to this path");
  cmd->callback([args] { run_render(*args); });
}

namespace {
void add_pathtrace_command(CLI::App& app) {
  auto* pt = app.add_subcommand("pathtrace",
                                "Differentiable sphere path tracer: render, recover parameters from an image "
                                "(optimize), check gradients against finite differences (gradcheck)");
  pt->require_subcommand(1);
  add_render_command(*pt);
  add_optimize_command(*pt);
  add_gradcheck_command(*pt);
}
}  // namespace

}  // namespace tilegrad::cli::pathtrace

TG_REGISTER_COMMAND(pathtrace, tilegrad::cli::pathtrace::add_pathtrace_command);
