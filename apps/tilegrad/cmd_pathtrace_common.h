// Options and helpers shared by the `tilegrad pathtrace` subcommands (render, optimize, gradcheck).
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli_checks.h"
#include "tilegrad/core/device.h"
#include "tilegrad/pathtracer/renderer.h"

namespace tilegrad::cli::pathtrace {

// Scene choice and render settings, as flags.
struct SceneOptions {
  std::string scene = "builtin:shaded";
  int width = 0, height = 0;
  std::string device = "auto";
  std::string integrator = "primary";
  int depth = 3;
  int spp = 16;
  std::uint32_t seed = 0;
  bool soft = false;
  float softness = 0.02f, depth_softness = 0.1f;

  void add_scene_flags(CLI::App& cmd);
  void add_render_flags(CLI::App& cmd);
  pathtracer::Scene load() const;
  pathtracer::RenderSettings settings() const;
  Device parsed_device() const;
};

struct GradientOptions {
  std::string strategy = "owned";
  bool interior_only = false, boundary_only = false, no_dormant_lights = false;
  float edge_density = 1.0f;
  void add_flags(CLI::App& cmd);
  pathtracer::GradientSettings settings() const;
};

void write_image(const std::string& path, const std::vector<float>& rgb, int width, int height);

void add_render_command(CLI::App& pathtrace);
void add_optimize_command(CLI::App& pathtrace);
void add_gradcheck_command(CLI::App& pathtrace);

}  // namespace tilegrad::cli::pathtrace
