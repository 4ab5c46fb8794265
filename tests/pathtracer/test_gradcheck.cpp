// The gradient check's criterion (gradcheck.h): its default run (builtin shaded, 64 x 64, 16 spp, primary)
// passes; a gradient missing a term fails it (no boundary term, no dormant lights); soft visibility passes the
// tight tolerance; errors are relative to the largest entry of their kind; bad options are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/gradcheck.h"
#include "tilegrad/pathtracer/scene_io.h"

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

// The command's defaults: builtin shaded at 64 x 64, 16 spp, primary.
GradcheckReport check(const GradientSettings& gs, bool soft = false, int size = 64, int spp = 16) {
  Renderer r(Device::Cpu);
  r.set_scene(builtin_scene("shaded", size, size));
  RenderSettings rs;
  rs.spp = spp;
  rs.soft = soft;
  return gradcheck(r, rs, gs, {});
}

bool fails(const GradcheckReport& r, int sphere, int param) {
  for (const GradcheckEntry& e : r.entries)
    if (e.sphere == sphere && e.param == param) return !e.pass;
  return false;
}

}  // namespace

TEST(Gradcheck, DefaultRunPasses) {
  const GradcheckReport r = check({});
  ASSERT_EQ(r.entries.size(), 30u);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.failed, 0);
  EXPECT_DOUBLE_EQ(r.tolerance, 0.05);
  for (const GradcheckEntry& e : r.entries) {
    const double largest = r.largest[static_cast<int>(param_kind(e.param))];
    EXPECT_NEAR(e.error, largest > 0 ? std::fabs(e.device - e.fd) / largest : std::fabs(e.device - e.fd), 1e-12);
    // Emission at 0 and albedo at 0 are differenced from the right only.
    const double x = builtin_scene("shaded", 64, 64).spheres[e.sphere].param(e.param);
    if (e.param >= kAlbedoR) {
      EXPECT_EQ(e.one_sided, x == 0.0f) << param_name(e.param);
    }
  }
  EXPECT_LT(r.worst()->error, 0.02);
}

TEST(Gradcheck, AGradientMissingATermFails) {
  GradientSettings interior_only;
  interior_only.boundary = false;
  EXPECT_FALSE(check(interior_only).passed());
  GradientSettings no_dormant;
  no_dormant.dormant_lights = false;
  const GradcheckReport r = check(no_dormant);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(fails(r, 1, kEmissionR)) << "the subject's emission misses the light it would cast on the ground";
  for (const GradcheckEntry& e : r.entries)
    if (param_kind(e.param) != ParamKind::Emission) {
      EXPECT_TRUE(e.pass) << e.sphere << " " << param_name(e.param);
    }
}

TEST(Gradcheck, SoftVisibilityPassesTheTightTolerance) {
  const GradcheckReport r = check({}, true, 32, 4);
  EXPECT_DOUBLE_EQ(r.tolerance, 1e-4);
  EXPECT_TRUE(r.passed()) << "worst " << r.worst()->error;
}

TEST(Gradcheck, RefusesBadOptions) {
  Renderer r(Device::Cpu);
  r.set_scene(builtin_scene("shaded", 16, 16));
  GradcheckOptions o;
  o.spheres = {3};
  EXPECT_THROW(gradcheck(r, RenderSettings{}, GradientSettings{}, o), InvalidArgument);
  o.spheres = {};
  o.step = -1;
  EXPECT_THROW(gradcheck(r, RenderSettings{}, GradientSettings{}, o), InvalidArgument);
  o.step = 0;
  o.tolerance = NAN;
  EXPECT_THROW(gradcheck(r, RenderSettings{}, GradientSettings{}, o), InvalidArgument);
}
