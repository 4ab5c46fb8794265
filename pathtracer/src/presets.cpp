// The inverse problems (see optimize.h): ground truth, perturbed start, parameters to recover.
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/optimize.h"
#include "tilegrad/pathtracer/scene_io.h"

namespace tilegrad::pathtracer {

std::vector<std::string> preset_names() {
  return {"shaded-center", "emissive-radius", "overlap-centers", "dark-light"};
}

namespace {

// A preset that starts from its ground truth with `move` applied and optimises `groups` of `spheres`.
template <class Move>
Preset preset(const std::string& name, const char* description, Scene truth, Integrator integrator,
              std::initializer_list<std::size_t> spheres, ParamGroup group, Move move) {
  Preset p;
  p.name = name;
  p.description = description;
  p.truth = std::move(truth);
  OptimizeProblem& pb = p.problem;
  pb.initial = p.truth;
  move(pb.initial);
  pb.mask = ParamMask::none(p.truth.spheres.size());
  for (std::size_t s : spheres) pb.mask.enable(s, group);
  pb.render.integrator = integrator;
  pb.render.spp = 4;
  pb.render.seed = 1;
  return p;
}

}  // namespace

Preset make_preset(const std::string& name, int width, int height) {
  const int w = width > 0 ? width : 128, h = height > 0 ? height : 128;
  if (name == "shaded-center")
    return preset(name, "a shaded sphere's centre (direct lighting with shadow rays, over a ground sphere)",
                  builtin_scene("shaded", w, h), Integrator::Direct, {1}, ParamGroup::Center,
                  [](Scene& s) { s.spheres[1].center += Vec3<float>{{0.35f, 0.2f, -0.3f}}; });
  if (name == "emissive-radius")
    return preset(name, "an emissive sphere's radius (only the boundary term sees it)", builtin_scene("emissive", w, h),
                  Integrator::Primary, {0}, ParamGroup::Radius, [](Scene& s) { s.spheres[0].radius = 0.7f; });
  if (name == "dark-light") {
    // The shaded scene with a second, bluish light outside the view, which starts dark: only the light it
    // casts on the spheres shows its emission, so its gradient at 0 must include that light (dormant lights).
    Scene truth = builtin_scene("shaded", w, h);
    truth.spheres.push_back({Vec3<float>{{-4.0f, 3.0f, 3.0f}}, 0.8f, Vec3<float>{{0, 0, 0}}, Vec3<float>{{6.0f, 12.0f, 20.0f}}});
    Preset p = preset(name, "the emission of a light outside the view that starts dark (0): only the light it casts shows it",
                      std::move(truth), Integrator::Direct, {3}, ParamGroup::Emission,
                      [](Scene& s) { s.spheres[3].emission = Vec3<float>::zero(); });
    p.problem.adam.lr = 1.0f;  // emission units: tens, not the lengths of a world of unit spheres
    p.problem.adam.lr_final = 0.01f;
    return p;
  }
  if (name == "overlap-centers")
    return preset(name, "two overlapping spheres' centres (primary visibility, shaded by a light)",
                  builtin_scene("overlap", w, h), Integrator::Primary, {0, 1}, ParamGroup::Center, [](Scene& s) {
                    s.spheres[0].center += Vec3<float>{{-0.3f, 0.25f, 0.2f}};
                    s.spheres[1].center += Vec3<float>{{0.25f, -0.2f, -0.25f}};
                  });
  throw InvalidArgument("unknown preset '" + name +
                        "' (expected shaded-center, emissive-radius, overlap-centers or dark-light)");
}

void render_target(Renderer& renderer, Preset& preset) {
  renderer.set_scene(preset.truth);
  preset.problem.target = renderer.render(preset.problem.render);
}

}  // namespace tilegrad::pathtracer
