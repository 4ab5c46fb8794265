// Inverse rendering on the CPU at small resolution: the presets recover their parameters within 1% (of the
// radius; of the emission); the emissive sphere's radius is out of reach of the interior term alone, the dark
// light's emission out of reach without dormant lights.
#include <gtest/gtest.h>

#include "tilegrad/pathtracer/optimize.h"

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

double run(const std::string& name, int size, bool boundary, double* first_loss = nullptr, double* last_loss = nullptr,
           bool dormant_lights = true) {
  Preset p = make_preset(name, size, size);
  Renderer renderer(Device::Cpu);
  render_target(renderer, p);
  p.problem.gradient.boundary = boundary;
  p.problem.gradient.dormant_lights = dormant_lights;
  const Scene result = optimize(renderer, p.problem, [&](const IterationInfo& it) {
    if (first_loss && it.iteration == 0) *first_loss = it.loss;
    if (last_loss) *last_loss = it.loss;
  });
  return recovery_error(p.truth, result, p.problem.mask);
}

}  // namespace

TEST(Optimize, EmissiveRadiusNeedsTheBoundaryTerm) {
  double first = 0, last = 0;
  EXPECT_LT(run("emissive-radius", 48, true, &first, &last), 0.01);
  EXPECT_LT(last, 1e-2 * first);
  // Interior only: the radius of a uniformly emissive sphere has no interior derivative at all.
  EXPECT_NEAR(run("emissive-radius", 48, false), 0.3, 1e-6);
}

TEST(Optimize, DarkLightIsRecoveredFromZeroEmission) {
  double first = 0, last = 0;
  EXPECT_LT(run("dark-light", 24, true, &first, &last), 0.01);
  EXPECT_LT(last, 1e-4 * first);
  // Without dormant lights the gradient of a dark sphere outside the view is exactly zero: it stays dark.
  EXPECT_EQ(run("dark-light", 24, true, nullptr, nullptr, false), 1.0);
}

TEST(Optimize, OverlappingCentresAreRecovered) { EXPECT_LT(run("overlap-centers", 40, true), 0.01); }

TEST(Optimize, PresetsAndMasks) {
  for (const std::string& name : preset_names()) {
    const Preset p = make_preset(name);
    EXPECT_GT(p.problem.mask.count(), 0u) << name;
    EXPECT_GT(recovery_error(p.truth, p.problem.initial, p.problem.mask), 0.1) << name << " starts far away";
    EXPECT_EQ(p.truth.camera.width, 128);
  }
  EXPECT_THROW(make_preset("nope"), InvalidArgument);
  EXPECT_THROW(parse_param_group("size"), InvalidArgument);
  OptimizeProblem pb = make_preset("emissive-radius", 16, 16).problem;
  Renderer renderer(Device::Cpu);
  EXPECT_THROW(optimize(renderer, pb), InvalidArgument);  // no target
}
