// The emission gradient of spheres at zero emission (dormant lights), for each integrator: a dark sphere
// beside the light, outside the view, so that its emission acts only through the light it would cast.
//  - the backward's estimator has the forward's value to the bit;
//  - its emission gradient is the one-sided float64 finite difference of renders that hold the sampler fixed
//    (light_sets(scene, true)), for every dark sphere, on the reference and on the float CPU backend;
//  - it is the derivative of the expected image: it matches the difference of forward renders (free light
//    lists: the dark sphere becomes a light) at many samples, where the gradient without dormant lights does not.
#include <gtest/gtest.h>

#include <cmath>

#include "pathtracer_fixtures.h"
#include "tilegrad/pathtracer/reference.h"
#include "tilegrad/pathtracer/renderer.h"
#include "tilegrad/pathtracer/scene_io.h"

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

using SceneD = SceneT<double>;
constexpr int kDark = 3;  // the dark sphere beside the light (sphere 2)

using test::dark_beside_light;

RenderSettings settings(Integrator integrator, int spp) {
  RenderSettings rs;
  rs.integrator = integrator;
  rs.max_depth = 3;
  rs.spp = spp;
  rs.seed = 4;
  return rs;
}

double weighted(const std::vector<double>& w, const std::vector<double>& img) {
  double s = 0;
  for (std::size_t i = 0; i < img.size(); ++i) s += w[i] * img[i];
  return s;
}

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

const Integrator kIntegrators[] = {Integrator::Primary, Integrator::Direct, Integrator::Path};

}  // namespace

TEST(EmissionAtZero, TheDarkSphereIsOutsideTheView) {
  const Scene scene = dark_beside_light(32, 32);
  Scene without = scene;
  without.spheres.pop_back();
  // No camera ray reaches it: the image without it is the same wherever it does not cast light or shadow,
  // and its silhouette has no edge samples. Primary has no shadows: the images agree exactly.
  const RenderSettings rs = settings(Integrator::Primary, 2);
  EXPECT_EQ(reference_render(scene_cast<double>(scene), rs), reference_render(scene_cast<double>(without), rs));
}

TEST(EmissionAtZero, TheBackwardEstimatorHasTheForwardValue) {
  const SceneD scene = scene_cast<double>(dark_beside_light(24, 24));
  const LightSets sets = light_sets(scene, true);
  ASSERT_EQ(sets.dormant, (std::vector<int>{0, 1, 3}));
  for (Integrator in : kIntegrators) {
    const RenderSettings rs = settings(in, 2);
    EXPECT_EQ(reference_render(scene, rs, &sets), reference_render(scene, rs)) << to_string(in);
  }
}

TEST(EmissionAtZero, GradientMatchesOneSidedFiniteDifferencesWithTheSamplerFixed) {
  const Scene scene = dark_beside_light(24, 24);
  const SceneD sd = scene_cast<double>(scene);
  const LightSets sets = light_sets(sd, true);
  const std::vector<float> adjoint = test::smooth_adjoint(24, 24);
  const std::vector<double> w = to_double(adjoint);
  for (Integrator in : kIntegrators) {
    SCOPED_TRACE(to_string(in));
    const RenderSettings rs = settings(in, 4);
    const std::vector<double> ad = reference_gradient(sd, rs, GradientSettings{}, w).total();
    const double base = weighted(w, reference_render(sd, rs, &sets));
    std::vector<double> ad_e, fd_e;
    for (int s : sets.dormant)
      for (int k = kEmissionR; k <= kEmissionB; ++k) {
        SceneD plus = sd;
        const double h = 1e-3;
        plus.spheres[s].set_param(k, h);  // from 0: the one-sided difference, emission >= 0
        ad_e.push_back(ad[static_cast<std::size_t>(s) * kSphereParams + k]);
        fd_e.push_back((weighted(w, reference_render(plus, rs, &sets)) - base) / h);
      }
    // The image is linear in emission: the difference quotient is exact up to rounding.
    EXPECT_LT(test::relative_to_largest(ad_e, fd_e), 1e-8);
    for (std::size_t j = 0; j < ad_e.size(); ++j)
      EXPECT_NEAR(ad_e[j], fd_e[j], 1e-8 * std::fabs(fd_e[j]) + 1e-10) << "dark entry " << j;
    // The dark sphere lights the subject and the ground about as the light beside it does per unit emission
    // (radius 0.8 against 1, a little farther away).
    for (int k = 0; k < 3; ++k) {
      const double light = ad[2 * kSphereParams + kEmissionR + k];
      EXPECT_GT(ad_e[6 + k] / light, 0.2) << "channel " << k;
      EXPECT_LT(ad_e[6 + k] / light, 1.0) << "channel " << k;
    }

    // The float CPU backend, deterministic strategies, against the float64 reference.
    for (Accumulation a : {Accumulation::SortReduce, Accumulation::Owned}) {
      Renderer r(Device::Cpu);
      r.set_scene(scene);
      GradientSettings gs;
      gs.strategy = a;
      std::vector<float> g(scene.num_params());
      const BackwardStats stats = r.backward(rs, gs, View<const float>(adjoint.data(), adjoint.size(), Device::Cpu),
                                             View<float>(g.data(), g.size(), Device::Cpu));
      EXPECT_EQ(stats.strategy, a);
      EXPECT_EQ(stats.contributions, stats.pixel_samples * 3 * static_cast<std::size_t>(path_depth(rs)));
      EXPECT_LT(test::relative_to_largest(g, ad), 1e-4) << to_string(a);
    }

    // Without dormant lights the dark sphere, seen by no camera ray, has no emission gradient at all (paths
    // reach it by bounces now and then).
    if (in != Integrator::Path) {
      GradientSettings off;
      off.dormant_lights = false;
      const std::vector<double> ad_off = reference_gradient(sd, rs, off, w).total();
      for (int k = kEmissionR; k <= kEmissionB; ++k) EXPECT_EQ(ad_off[kDark * kSphereParams + k], 0.0);
    }
  }
}

TEST(EmissionAtZero, GradientIsTheDerivativeOfTheExpectedImage) {
  // Forward renders with free light lists: at emission H the dark sphere is a light and the lights are
  // sampled among two. The expected image is linear in emission, so (E[I(H)] - E[I(0)]) / H is the
  // derivative from the right; both sides are Monte Carlo estimates here (65k and, for paths, 131k samples
  // per render; over seeds 1..8 they differ by at most 2.3%, standard deviation about 1%).
  const int n = 32;
  const SceneD sd = scene_cast<double>(dark_beside_light(n, n));
  const std::vector<double> w = to_double(test::smooth_adjoint(n, n));
  const double H = 20.0;
  for (Integrator in : kIntegrators) {
    SCOPED_TRACE(to_string(in));
    const RenderSettings rs = settings(in, in == Integrator::Path ? 128 : 64);
    SceneD lit = sd;
    lit.spheres[kDark].emission = Vec3<double>{{H, H, H}};
    RenderSettings other = rs;
    other.seed = 99;  // the two renders with other numbers: no correlation helps the difference
    const double fd = (weighted(w, reference_render(lit, other)) - weighted(w, reference_render(sd, rs))) / H;
    auto along_grey = [&](bool dormant) {  // derivative along emission (1, 1, 1)
      GradientSettings gs;
      gs.dormant_lights = dormant;
      const auto g = reference_gradient(sd, rs, gs, w).total();
      return g[kDark * kSphereParams + kEmissionR] + g[kDark * kSphereParams + kEmissionG] +
             g[kDark * kSphereParams + kEmissionB];
    };
    const double with = along_grey(true);
    EXPECT_NEAR(with, fd, 0.04 * std::fabs(fd));
    // Without dormant lights only paths see the dark sphere's emission: where a bounce happens to hit it (an
    // estimate of the light it casts on all vertices but the last, with far more variance).
    if (in != Integrator::Path) {
      EXPECT_EQ(along_grey(false), 0.0);
    }
  }
}
