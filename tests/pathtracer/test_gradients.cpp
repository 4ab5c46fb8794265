// Gradients of whole images on the CPU: the interior term against central differences with common random
// numbers (float64, pixels whose samples stay away from edges), soft visibility against central
// differences everywhere, and the boundary term against the closed form of an emissive sphere's image.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tilegrad/pathtracer/reference.h"
#include "tilegrad/pathtracer/renderer.h"
#include "tilegrad/pathtracer/sampling.h"
#include "tilegrad/pathtracer/scene_io.h"

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

using SceneD = SceneT<double>;

std::vector<double> random_weights(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> w(n);
  for (double& x : w) x = d(rng);
  return w;
}

double weighted_sum(const std::vector<double>& w, const std::vector<double>& img) {
  double s = 0;
  for (std::size_t i = 0; i < img.size(); ++i) s += w[i] * img[i];
  return s;
}

struct Param {
  int sphere, index;
};

// Centres and radii of every sphere, albedo of the non-lights, emission of the lights (a sphere with zero
// emission is not a light: the light list would change under a perturbation).
std::vector<Param> tested_params(const SceneD& s) {
  std::vector<Param> p;
  for (int i = 0; i < static_cast<int>(s.spheres.size()); ++i) {
    for (int k = kCenterX; k <= kRadius; ++k) p.push_back({i, k});
    const bool light = s.spheres[i].is_light();
    for (int k = 0; k < 3; ++k) p.push_back({i, (light ? kEmissionR : kAlbedoR) + k});
  }
  return p;
}

SceneD perturbed(const SceneD& s, Param p, double delta) {
  SceneD r = s;
  r.spheres[p.sphere].set_param(p.index, s.spheres[p.sphere].param(p.index) + delta);
  return r;
}

double step_for(const SceneD& s, Param p, double rel) {
  return rel * std::fmax(1.0, std::fabs(s.spheres[p.sphere].param(p.index)));
}

// |ad - fd| <= rel * max(|fd|, 1e-3 * largest |fd|) for every parameter.
void expect_close(const std::vector<double>& ad, const std::vector<double>& fd, const std::vector<Param>& params,
                  double rel) {
  double largest = 0;
  for (double x : fd) largest = std::fmax(largest, std::fabs(x));
  ASSERT_GT(largest, 0.0);
  for (std::size_t j = 0; j < params.size(); ++j)
    EXPECT_NEAR(ad[j], fd[j], rel * std::fmax(std::fabs(fd[j]), 1e-3 * largest))
        << "sphere " << params[j].sphere << " parameter " << params[j].index;
}

void check_interior(const SceneD& scene, const RenderSettings& rs) {
  const std::vector<Param> params = tested_params(scene);
  // Pixels whose decisions (spheres hit, lights, shadow rays) do not change when any parameter moves by a
  // margin far larger than the finite-difference step: their samples stay away from every edge.
  const auto base = reference_decisions(scene, rs);
  std::vector<char> stable(base.size(), 1);
  for (const Param& p : params)
    for (double sign : {-1.0, 1.0}) {
      const auto moved = reference_decisions(perturbed(scene, p, sign * step_for(scene, p, 1e-3)), rs);
      for (std::size_t i = 0; i < base.size(); ++i) stable[i] = stable[i] && moved[i] == base[i];
    }
  std::vector<double> w = random_weights(base.size() * 3, 11);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    kept += stable[i];
    if (!stable[i]) w[3 * i] = w[3 * i + 1] = w[3 * i + 2] = 0.0;
  }
  ASSERT_GT(kept, base.size() / 2) << "too few pixels away from edges";

  GradientSettings gs;
  gs.boundary = false;
  const auto g = reference_gradient(scene, rs, gs, w);
  std::vector<double> ad, fd;
  for (const Param& p : params) {
    const double h = step_for(scene, p, 1e-6);
    ad.push_back(g.interior[p.sphere * kSphereParams + p.index]);
    fd.push_back((weighted_sum(w, reference_render(perturbed(scene, p, h), rs)) -
                  weighted_sum(w, reference_render(perturbed(scene, p, -h), rs))) / (2 * h));
  }
  expect_close(ad, fd, params, 1e-6);
}

RenderSettings settings(Integrator integrator, int spp, int depth = 3) {
  RenderSettings rs;
  rs.integrator = integrator;
  rs.spp = spp;
  rs.max_depth = depth;
  rs.seed = 5;
  return rs;
}

}  // namespace

TEST(Gradients, InteriorMatchesFiniteDifferencesPrimary) {
  check_interior(scene_cast<double>(builtin_scene("shaded", 24, 24)), settings(Integrator::Primary, 2));
  check_interior(scene_cast<double>(builtin_scene("overlap", 24, 24)), settings(Integrator::Primary, 2));
}

TEST(Gradients, InteriorMatchesFiniteDifferencesDirect) {
  check_interior(scene_cast<double>(builtin_scene("shaded", 24, 24)), settings(Integrator::Direct, 2));
}

TEST(Gradients, InteriorMatchesFiniteDifferencesPaths) {
  check_interior(scene_cast<double>(builtin_scene("shaded", 20, 20)), settings(Integrator::Path, 2, 3));
}

TEST(Gradients, SoftVisibilityMatchesFiniteDifferencesEverywhere) {
  SceneD scene = scene_cast<double>(builtin_scene("overlap", 24, 24));
  scene.spheres[0].emission = Vec3<double>{{0.05, 0.02, 0.01}};  // central differences stay in range
  RenderSettings rs = settings(Integrator::Primary, 2);
  rs.soft = true;
  rs.softness = 0.05f;
  const std::vector<double> w = random_weights(24 * 24 * 3, 3);
  GradientSettings gs;
  const auto g = reference_gradient(scene, rs, gs, w);
  std::vector<Param> params;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < kSphereParams; ++k)
      if (k < kAlbedoR || scene.spheres[i].param(k) > 0.0) params.push_back({i, k});
  std::vector<double> ad, fd;
  for (const Param& p : params) {
    const double h = step_for(scene, p, 1e-6);
    ad.push_back(g.total()[p.sphere * kSphereParams + p.index]);
    fd.push_back((weighted_sum(w, reference_render(perturbed(scene, p, h), rs)) -
                  weighted_sum(w, reference_render(perturbed(scene, p, -h), rs))) / (2 * h));
  }
  expect_close(ad, fd, params, 1e-6);
  for (double b : g.boundary) EXPECT_EQ(b, 0.0);  // nothing is discontinuous
}

// Two overlapping spheres of different emission: their image has silhouettes against the background and
// against each other, and the curve where they meet. Central differences of hard-edged renders with common
// random numbers count the samples that cross an edge; with a step of 1% of the radius and 256 samples per
// pixel they approach interior + boundary to about a percent of the largest entry (their own noise). The
// interior term is exactly zero here: uniform emission does not depend on the geometry.
TEST(Gradients, BoundaryMatchesFiniteDifferencesOfHardEdges) {
  SceneD scene = scene_cast<double>(builtin_scene("overlap", 64, 64));
  scene.spheres.resize(2);  // no light: uniformly emissive spheres, so all geometry gradient is boundary
  for (auto& sp : scene.spheres) sp.albedo = Vec3<double>::zero();
  scene.spheres[0].emission = Vec3<double>{{0.9, 0.3, 0.1}};
  scene.spheres[1].emission = Vec3<double>{{0.1, 0.4, 0.8}};
  const RenderSettings rs = settings(Integrator::Primary, 256);
  std::vector<double> w(64 * 64 * 3);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      for (int c = 0; c < 3; ++c) w[(y * 64 + x) * 3 + c] = 0.5 + std::sin(0.11 * x + c) * std::cos(0.07 * y - c);
  const auto g = reference_gradient(scene, rs, GradientSettings{}, w);
  std::vector<Param> params;
  for (int i = 0; i < 2; ++i)
    for (int k = kCenterX; k <= kRadius; ++k) params.push_back({i, k});
  std::vector<double> total, fd;
  double largest = 0;
  for (const Param& p : params) {
    const double h = 0.01 * scene.spheres[p.sphere].radius;
    EXPECT_EQ(g.interior[p.sphere * kSphereParams + p.index], 0.0);
    total.push_back(g.total()[p.sphere * kSphereParams + p.index]);
    fd.push_back((weighted_sum(w, reference_render(perturbed(scene, p, h), rs)) -
                  weighted_sum(w, reference_render(perturbed(scene, p, -h), rs))) / (2 * h));
    largest = std::fmax(largest, std::fabs(fd.back()));
  }
  for (std::size_t j = 0; j < params.size(); ++j)
    EXPECT_NEAR(total[j], fd[j], 0.02 * largest) << "sphere " << params[j].sphere << " parameter " << params[j].index;
}

// An emissive sphere of radius r on the optical axis at depth z, fully inside the frame: its image is a disc
// of area A = pi f^2 r^2 / (z^2 - r^2) pixels, so the image sum is emission x A, with
// dA/dr = 2 pi f^2 r z^2 / (z^2 - r^2)^2 and dA/dz = -2 pi f^2 r^2 z / (z^2 - r^2)^2.
class EmissiveSphere : public ::testing::Test {
 protected:
  void SetUp() override {
    scene = builtin_scene("emissive", 96, 96);
    const Sphere& s = scene.spheres[0];
    const double f = scene.camera.fy, r = s.radius, z = norm(s.center - scene.camera.position);
    const double q = z * z - r * r;
    area = kPi * f * f * r * r / q;
    d_area_dr = 2 * kPi * f * f * r * z * z / (q * q);
    d_area_dz = -2 * kPi * f * f * r * r * z / (q * q);
    emission_sum = s.emission[0] + s.emission[1] + s.emission[2];
    rs = settings(Integrator::Primary, 16);
    ones.assign(static_cast<std::size_t>(96) * 96 * 3, 1.0f);
  }
  Scene scene;
  RenderSettings rs;
  std::vector<float> ones;
  double area = 0, d_area_dr = 0, d_area_dz = 0, emission_sum = 0;
};

TEST_F(EmissiveSphere, ImageSumIsEmissionTimesProjectedArea) {
  Renderer renderer(Device::Cpu);
  renderer.set_scene(scene);
  const std::vector<float> img = renderer.render(rs);
  double sum[3] = {0, 0, 0};
  for (std::size_t i = 0; i < img.size(); ++i) sum[i % 3] += img[i];
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(sum[c], scene.spheres[0].emission[c] * area, 5e-3 * sum[c]) << "channel " << c;
  // Border pixels are untouched: the disc is inside the frame.
  for (int x = 0; x < 96; ++x) EXPECT_EQ(img[static_cast<std::size_t>(x) * 3], 0.0f);
}

TEST_F(EmissiveSphere, InteriorAloneMissesTheGeometryGradient) {
  GradientSettings interior_only;
  interior_only.boundary = false;
  const auto g = reference_gradient(scene_cast<double>(scene), rs, interior_only,
                                    std::vector<double>(ones.begin(), ones.end()));
  for (int k = kCenterX; k <= kRadius; ++k) EXPECT_EQ(g.interior[k], 0.0) << "parameter " << k;
  // Emission is seen by the interior term: d(sum)/d(emission_c) = covered area.
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(g.interior[kEmissionR + c], area, 5e-3 * area);
}

TEST_F(EmissiveSphere, InteriorPlusBoundaryMatchesTheClosedForm) {
  const double dr = emission_sum * d_area_dr;
  const double dcz = -emission_sum * d_area_dz;  // the camera looks down -z: moving the centre by +z brings it closer
  auto check = [&](const double* g, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_NEAR(g[kRadius], dr, 0.01 * dr);
    EXPECT_NEAR(g[kCenterZ], dcz, 0.01 * std::fabs(dcz));
    EXPECT_NEAR(g[kCenterX], 0.0, 0.01 * dr);  // symmetric
    EXPECT_NEAR(g[kCenterY], 0.0, 0.01 * dr);
  };
  const auto ref = reference_gradient(scene_cast<double>(scene), rs, GradientSettings{},
                                      std::vector<double>(ones.begin(), ones.end()));
  check(ref.total().data(), "float64 reference");
  for (Accumulation a : kAllAccumulations) {
    Renderer renderer(Device::Cpu);
    renderer.set_scene(scene);
    GradientSettings gs;
    gs.strategy = a;
    std::vector<float> g(kSphereParams);
    renderer.backward(rs, gs, View<const float>(ones.data(), ones.size(), Device::Cpu),
                      View<float>(g.data(), g.size(), Device::Cpu));
    const std::vector<double> gd(g.begin(), g.end());
    check(gd.data(), to_string(a));
  }
}
