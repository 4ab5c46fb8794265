// Lens models: COLMAP's definitions and parameter orders, the Jacobian against float64 central differences,
// Newton inverses, the one-to-one domain, and the undistorted camera with pixel round trips over the image.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lens_fixtures.h"
#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/lens.h"

using namespace tilegrad;
using namespace tilegrad::raster;
using tilegrad::test::every_distorted_lens;
using tilegrad::test::make_lens;

namespace {

// COLMAP's model definitions, written out per model from its documentation, in its parameter order.
Vec2<double> colmap_reference(const Lens& l, double u, double v) {
  const double* q = l.params;
  const double r2 = u * u + v * v, r = std::sqrt(r2);
  auto rad_tan = [&](double radial_factor, double p1, double p2) {
    return Vec2<double>{{u * radial_factor + 2 * p1 * u * v + p2 * (r2 + 2 * u * u),
                         v * radial_factor + 2 * p2 * u * v + p1 * (r2 + 2 * v * v)}};
  };
  auto fisheye = [&](double k1, double k2, double k3, double k4) {
    const double t = std::atan(r), t2 = t * t;
    const double td = t * (1 + k1 * t2 + k2 * t2 * t2 + k3 * t2 * t2 * t2 + k4 * t2 * t2 * t2 * t2);
    return Vec2<double>{{u * td / r, v * td / r}};
  };
  switch (l.model) {
    case LensModel::SimpleRadial: return rad_tan(1 + q[0] * r2, 0, 0);
    case LensModel::Radial: return rad_tan(1 + q[0] * r2 + q[1] * r2 * r2, 0, 0);
    case LensModel::OpenCV: return rad_tan(1 + q[0] * r2 + q[1] * r2 * r2, q[2], q[3]);
    case LensModel::FullOpenCV: {
      const double r4 = r2 * r2, r6 = r4 * r2;
      return rad_tan((1 + q[0] * r2 + q[1] * r4 + q[4] * r6) / (1 + q[5] * r2 + q[6] * r4 + q[7] * r6), q[2], q[3]);
    }
    case LensModel::OpenCVFisheye: return fisheye(q[0], q[1], q[2], q[3]);
    case LensModel::SimpleRadialFisheye: return fisheye(q[0], 0, 0, 0);
    case LensModel::RadialFisheye: return fisheye(q[0], q[1], 0, 0);
    case LensModel::Fov: {
      const double f = std::atan(2 * r * std::tan(q[0] / 2)) / (r * q[0]);
      return {{u * f, v * f}};
    }
    case LensModel::Pinhole: break;
  }
  return {{u, v}};
}

// Points spread over the disc of radius `radius` (off the axis).
std::vector<Vec2<double>> sample_points(double radius, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), frac(0.02, 1.0);
  std::vector<Vec2<double>> out;
  for (int i = 0; i < n; ++i) {
    const double a = angle(rng), r = radius * std::sqrt(frac(rng));
    out.push_back({{r * std::cos(a), r * std::sin(a)}});
  }
  return out;
}

// A 640 x 480 camera with its principal point slightly off centre.
Camera test_camera() {
  Camera c;
  c.fx = 520, c.fy = 515, c.cx = 322.5f, c.cy = 236.25f, c.width = 640, c.height = 480;
  return c;
}

}  // namespace

TEST(Lens, ModelTableFollowsColmap) {
  EXPECT_STREQ(to_string(LensModel::FullOpenCV), "FULL_OPENCV");
  EXPECT_STREQ(to_string(LensModel::SimpleRadialFisheye), "SIMPLE_RADIAL_FISHEYE");
  EXPECT_EQ(lens_param_count(LensModel::FullOpenCV), 8);
  EXPECT_EQ(lens_param_count(LensModel::Fov), 1);
  EXPECT_STREQ(lens_param_name(LensModel::FullOpenCV, 4), "k3");
  EXPECT_STREQ(lens_param_name(LensModel::OpenCV, 2), "p1");
  EXPECT_THROW(lens_param_name(LensModel::OpenCV, 4), InvalidArgument);
}

TEST(Lens, PerspectiveModelsWithZeroCoefficientsArePinholesFisheyesNever) {
  EXPECT_TRUE(is_pinhole(Lens{}));
  EXPECT_TRUE(is_pinhole(make_lens(LensModel::OpenCV, {0, 0, 0, 0})));
  EXPECT_TRUE(is_pinhole(make_lens(LensModel::FullOpenCV, {0, 0, 0, 0, 0, 0, 0, 0})));
  EXPECT_TRUE(is_pinhole(make_lens(LensModel::Fov, {0})));
  EXPECT_FALSE(is_pinhole(make_lens(LensModel::OpenCV, {0, 0, 1e-9, 0})));
  EXPECT_FALSE(is_pinhole(make_lens(LensModel::OpenCVFisheye, {0, 0, 0, 0})));  // equidistant, not pinhole
  EXPECT_EQ(lens_coefficients(make_lens(LensModel::Radial, {0, 0})).family, LensFamily::None);
  // A zero-coefficient fisheye is the equidistant projection: a ray theta off axis lands at radius theta.
  const LensCoefficients<double> eq = lens_coefficients(make_lens(LensModel::OpenCVFisheye, {0, 0, 0, 0}));
  const Vec2<double> d = distort_point(eq, {{std::tan(1.0), 0.0}});
  EXPECT_NEAR(d[0], 1.0, 1e-14);
}

TEST(Lens, ValidationNamesTheParameter) {
  try {
    validate(make_lens(LensModel::OpenCV, {0, NAN, 0, 0}));
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("k2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(validate(make_lens(LensModel::Fov, {3.2})), InvalidArgument);
  EXPECT_NO_THROW(validate(make_lens(LensModel::Fov, {3.1})));
}

TEST(Lens, DistortionMatchesColmapsDefinitionForEveryModel) {
  for (const Lens& lens : every_distorted_lens()) {
    const LensCoefficients<double> c = lens_coefficients(lens);
    const LensCoefficients<float> cf = to_float(c);
    for (const Vec2<double>& p : sample_points(0.9, 200, 1)) {
      const Vec2<double> expected = colmap_reference(lens, p[0], p[1]);
      const Vec2<double> got = distort_point(c, p);
      EXPECT_NEAR(got[0], expected[0], 1e-13) << to_string(lens.model);
      EXPECT_NEAR(got[1], expected[1], 1e-13) << to_string(lens.model);
      // The float instantiation (what kernels run) agrees to float precision.
      const Vec2<float> f = distort(cf, Vec2<float>{{float(p[0]), float(p[1])}});
      EXPECT_NEAR(f[0], expected[0], 2e-6) << to_string(lens.model);
      EXPECT_NEAR(f[1], expected[1], 2e-6) << to_string(lens.model);
    }
    // On the axis (where r = 0 needs series) the map is continuous.
    const Vec2<double> tiny = distort_point(c, {{1e-9, -2e-9}});
    const Vec2<double> ref = colmap_reference(lens, 1e-9, -2e-9);
    EXPECT_NEAR(tiny[0], ref[0], 1e-20) << to_string(lens.model);
    EXPECT_NEAR(tiny[1], ref[1], 1e-20) << to_string(lens.model);
  }
}

TEST(Lens, FovSmallOmegaSeriesMatchesTheDefinition) {
  // Below omega^2 = 1e-8 the slope 2 tan(omega / 2) / omega is a series; it must meet the closed form.
  for (const double w : {1e-5, 9.9e-5, 1.01e-4, 1e-3}) {
    const LensCoefficients<double> c = lens_coefficients(make_lens(LensModel::Fov, {w}));
    for (const double r : {0.1, 0.7, 2.0}) {
      const double expected = std::atan(2 * r * std::tan(w / 2)) / w;
      EXPECT_NEAR(distort_point(c, {{r, 0.0}})[0], expected, 1e-15 * (1 + r)) << w << " " << r;
    }
  }
}

TEST(Lens, JacobianMatchesFloat64CentralDifferences) {
  for (const Lens& lens : every_distorted_lens()) {
    const LensCoefficients<double> c = lens_coefficients(lens);
    for (const Vec2<double>& p : sample_points(0.9, 50, 2)) {
      const Mat2<double> j = distortion_jacobian(c, p);
      const double h = 1e-6;
      for (int k = 0; k < 2; ++k) {
        Vec2<double> a = p, b = p;
        a[k] += h;
        b[k] -= h;
        const Vec2<double> da = distort_point(c, a), db = distort_point(c, b);
        for (int i = 0; i < 2; ++i)
          EXPECT_NEAR(j(i, k), (da[i] - db[i]) / (2 * h), 1e-8) << to_string(lens.model) << " d" << i << "/d" << k;
      }
    }
  }
}

TEST(Lens, NewtonInverseRecoversRays) {
  for (const Lens& lens : every_distorted_lens()) {
    const LensCoefficients<double> c = lens_coefficients(lens);
    for (const Vec2<double>& p : sample_points(1.0, 300, 3)) {
      Vec2<double> back;
      ASSERT_TRUE(undistort_point(c, distort_point(c, p), back)) << to_string(lens.model);
      EXPECT_NEAR(back[0], p[0], 1e-12) << to_string(lens.model);
      EXPECT_NEAR(back[1], p[1], 1e-12) << to_string(lens.model);
    }
    Vec2<double> origin;
    ASSERT_TRUE(undistort_point(c, {{0.0, 0.0}}, origin));
    EXPECT_EQ(origin[0], 0.0);
  }
  // FOV has a closed-form inverse: r = tan(rd omega) / (2 tan(omega / 2)).
  const double w = 0.9;
  const LensCoefficients<double> fov = lens_coefficients(make_lens(LensModel::Fov, {w}));
  Vec2<double> uv;
  ASSERT_TRUE(undistort_point(fov, {{0.6, 0.0}}, uv));
  EXPECT_NEAR(uv[0], std::tan(0.6 * w) / (2 * std::tan(w / 2)), 1e-13);
}

TEST(Lens, DomainEndsWhereTheMapFolds) {
  // r (1 + k r^2) stops growing at r = 1 / sqrt(-3 k).
  const double k = -0.3;
  const LensCoefficients<double> c = lens_coefficients(make_lens(LensModel::SimpleRadial, {k}));
  const double fold = 1 / std::sqrt(-3 * k);
  EXPECT_LE(c.max_rho, fold);
  EXPECT_GT(c.max_rho, fold - 2e-3);
  // Distorted radii beyond the largest one the lens reaches have no ray; inside they do.
  const double reach = radial_map(c, c.max_rho);
  Vec2<double> uv;
  EXPECT_FALSE(undistort_point(c, {{reach * 1.01, 0.0}}, uv));
  EXPECT_TRUE(undistort_point(c, {{reach * 0.99, 0.0}}, uv));
  EXPECT_LT(uv[0], fold);
  // A fisheye's domain stops at 90 degrees; a lens without folds keeps the whole perspective range.
  const LensCoefficients<double> fe = lens_coefficients(make_lens(LensModel::OpenCVFisheye, {0.05, -0.01, 0, 0}));
  EXPECT_NEAR(fe.max_rho, M_PI / 2, 1e-6);
  const LensCoefficients<double> mild = lens_coefficients(make_lens(LensModel::SimpleRadial, {0.1}));
  EXPECT_GT(mild.max_r, 100.0);
  EXPECT_TRUE(in_lens_domain(c, 0.5 * fold, 0.0));
  EXPECT_FALSE(in_lens_domain(c, fold, 0.0));
}

TEST(Lens, PinholeCameraIsKeptAsIs) {
  const Camera cam = test_camera();
  const Camera out = undistorted_camera(cam, Lens{});
  EXPECT_EQ(out.width, cam.width);
  EXPECT_EQ(out.fx, cam.fx);
  EXPECT_EQ(out.cx, cam.cx);
  EXPECT_EQ(undistorted_camera(cam, make_lens(LensModel::OpenCV, {0, 0, 0, 0})).height, cam.height);
}

// Over the whole undistorted image (crop: every pixel; full frame: the pixels with a source in the image), the
// source position of a pixel undistorts back onto the pixel to within 0.01 px, and every source pixel maps back.
TEST(Lens, UndistortedCameraRoundTripsBelowOneHundredthOfAPixel) {
  const Camera cam = test_camera();
  for (const Lens& lens : every_distorted_lens()) {
    const LensCoefficients<double> c = lens_coefficients(lens);
    for (const double blank : {0.0, 1.0}) {
      const Camera out = undistorted_camera(cam, lens, blank);
      EXPECT_EQ(out.fx, cam.fx);
      EXPECT_EQ(out.fy, cam.fy);
      double worst = 0;
      int inside = 0, outside = 0;
      for (int y = 0; y < out.height; ++y) {
        for (int x = 0; x < out.width; ++x) {
          const Vec2<double> ray{{(x + 0.5 - out.cx) / out.fx, (y + 0.5 - out.cy) / out.fy}};
          if (!in_lens_domain(c, ray[0], ray[1])) {
            ++outside;
            continue;
          }
          const Vec2<double> d = distort_point(c, ray);
          const double sx = cam.fx * d[0] + cam.cx, sy = cam.fy * d[1] + cam.cy;
          if (sx < 0 || sx > cam.width || sy < 0 || sy > cam.height) {
            ++outside;
            continue;
          }
          ++inside;
          Vec2<double> back;
          ASSERT_TRUE(undistort_point(c, {{(sx - cam.cx) / cam.fx, (sy - cam.cy) / cam.fy}}, back));
          worst = std::max(worst, std::hypot(out.fx * back[0] + out.cx - (x + 0.5), out.fy * back[1] + out.cy - (y + 0.5)));
        }
      }
      EXPECT_LT(worst, 0.01) << to_string(lens.model);
      if (blank == 0.0) {
        // The crop leaves (at most a sliver of) no pixel without a source.
        EXPECT_LE(outside, (out.width + out.height) / 2) << to_string(lens.model);
      } else {
        EXPECT_GT(inside, 0);
      }
      // Every source pixel centre inside the lens's domain lands inside the full-frame image.
      if (blank == 1.0 && lens.model != LensModel::OpenCVFisheye && lens.model != LensModel::SimpleRadialFisheye &&
          lens.model != LensModel::RadialFisheye) {
        for (int y = 0; y < cam.height; y += 7) {
          for (int x = 0; x < cam.width; x += 7) {
            Vec2<double> uv;
            ASSERT_TRUE(undistort_point(c, {{(x + 0.5 - cam.cx) / cam.fx, (y + 0.5 - cam.cy) / cam.fy}}, uv));
            const double px = out.fx * uv[0] + out.cx, py = out.fy * uv[1] + out.cy;
            EXPECT_TRUE(px > -1 && px < out.width + 1 && py > -1 && py < out.height + 1)
                << to_string(lens.model) << " " << x << "," << y << " -> " << px << "," << py;
          }
        }
      }
    }
  }
}

TEST(Lens, BarrelDistortionCropGrowsTheImageAndFullFrameGrowsItMore) {
  // Barrel distortion pushes the border outward when undistorted: the crop already holds more pixels at the
  // same focal length, the full frame more still; the principal point scales with the size.
  const Camera cam = test_camera();
  const Lens barrel = make_lens(LensModel::Radial, {-0.25, 0.08});
  const Camera crop = undistorted_camera(cam, barrel, 0.0), full = undistorted_camera(cam, barrel, 1.0);
  EXPECT_GT(crop.width, cam.width);
  EXPECT_GT(full.width, crop.width);
  EXPECT_GT(full.height, crop.height);
  EXPECT_NEAR(crop.cx / crop.width, cam.cx / cam.width, 1e-6);
  // Scales are clamped to [min_scale, max_scale].
  EXPECT_EQ(undistorted_camera(cam, barrel, 1.0, 0.2, 1.0).width, cam.width);
  EXPECT_THROW(undistorted_camera(cam, barrel, 1.5), InvalidArgument);
}
