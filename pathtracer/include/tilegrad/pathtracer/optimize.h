// Inverse rendering: recover sphere parameters from a target image with Adam on the L2 image loss, and the
// named problems (presets) that show what interior and boundary gradients can recover.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tilegrad/pathtracer/renderer.h"

namespace tilegrad::pathtracer {

enum class ParamGroup { Center, Radius, Albedo, Emission };

// Which entries of the flat parameter vector the optimizer may change.
struct ParamMask {
  std::vector<char> active;  // [spheres x 10]
  static ParamMask none(std::size_t spheres) { return {std::vector<char>(spheres * kSphereParams, 0)}; }
  void enable(std::size_t sphere, ParamGroup group);
  std::size_t count() const;
};
// Parses "center", "radius", "albedo", "emission" (the CLI's --params).
ParamGroup parse_param_group(const std::string& name);

struct AdamOptions {
  int iterations = 200;
  float lr = 0.03f;        // first step size, in parameter units (world units for centres and radii)
  float lr_final = 0.01f;  // reached at the last iteration by exponential decay
  float beta1 = 0.9f, beta2 = 0.99f, eps = 1e-8f;
};

struct OptimizeProblem {
  Scene initial;
  std::vector<float> target;  // [height][width][3] on the host
  ParamMask mask;
  RenderSettings render;
  GradientSettings gradient;
  AdamOptions adam;
};

struct IterationInfo {
  int iteration = 0;      // 0-based; the scene is the one that was rendered
  double loss = 0;
  const Scene* scene = nullptr;
  View<const float> image;  // rendered image on the renderer's device
  BackwardStats stats;
};

// Runs Adam; calls `on_iteration` after each render + backward (may be empty). Returns the final scene.
// Parameters stay valid after every step: radius >= 1e-3, albedo in [0, 1], emission >= 0.
Scene optimize(Renderer& renderer, const OptimizeProblem& problem,
               const std::function<void(const IterationInfo&)>& on_iteration = {});

struct Preset {
  std::string name, description;
  Scene truth;            // hidden: only its image is given to the optimizer
  OptimizeProblem problem;  // target empty until render_target()
  float tolerance = 0.01f;  // recovered within this fraction (recovery_error)
};
// shaded-center, emissive-radius, overlap-centers, dark-light. width/height 0: the preset's default resolution.
std::vector<std::string> preset_names();
Preset make_preset(const std::string& name, int width = 0, int height = 0);
// Renders the truth with the problem's settings (common random numbers: the same sampler as the iterations).
void render_target(Renderer& renderer, Preset& preset);

// Largest error of the optimised parameters: centres and radii relative to the true radius, emission (any
// channel optimised) as |emission - true| / |true emission| (absolute when the truth is dark); 0 when none
// of these is optimised.
double recovery_error(const Scene& truth, const Scene& result, const ParamMask& mask);

}  // namespace tilegrad::pathtracer
