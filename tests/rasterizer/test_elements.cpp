// Per-element math of the rasterizer against independent float64 formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tilegrad/rasterizer/element/blend.h"
#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

ProjectionCamera axis_camera(float fx, float fy, float cx, float cy, int w = 64, int h = 48) {
  Camera c;
  c.fx = fx;
  c.fy = fy;
  c.cx = cx;
  c.cy = cy;
  c.width = w;
  c.height = h;
  return make_projection_camera(c);
}

// Rotation about a unit axis by an angle (Rodrigues), independent of the quaternion code.
Mat3<double> rodrigues(const Vec3<double>& axis, double angle) {
  const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
  const double x = axis[0], y = axis[1], z = axis[2];
  return {{{t * x * x + c, t * x * y - s * z, t * x * z + s * y},
           {t * x * y + s * z, t * y * y + c, t * y * z - s * x},
           {t * x * z - s * y, t * y * z + s * x, t * z * z + c}}};
}

}  // namespace

TEST(Elements, QuaternionMatchesAxisAngleAndIsNormalised) {
  const Vec3<double> axis = Vec3<double>{{1, -2, 0.5}} / norm(Vec3<double>{{1, -2, 0.5}});
  const double angle = 0.8;
  // Unnormalised on purpose: the rotation must not depend on the quaternion's length.
  const double k = 3.7;
  const Vec4<double> q{{k * std::cos(angle / 2), k * std::sin(angle / 2) * axis[0], k * std::sin(angle / 2) * axis[1],
                        k * std::sin(angle / 2) * axis[2]}};
  const Mat3<double> r = rotation_from_quaternion(q), ref = rodrigues(axis, angle);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(r(i, j), ref(i, j), 1e-14);
}

TEST(Elements, ProjectionOfAxisAlignedGaussian) {
  // Camera at the origin looking down +z; Gaussian on the axis with scales (sx, sy, sz) at depth z:
  // 2D covariance = diag(fx^2 sx^2 / z^2, fy^2 sy^2 / z^2) + blur.
  const auto cam = axis_camera(50.0f, 60.0f, 32.0f, 24.0f);
  const double sx = 0.2, sy = 0.1, sz = 0.3, z = 5.0;
  const Projected<double> p = project_gaussian(Vec3<double>{{0, 0, z}}, Vec3<double>{{std::log(sx), std::log(sy), std::log(sz)}},
                                               Vec4<double>{{1, 0, 0, 0}}, 0.4, cam, 0.3f, false);
  ASSERT_TRUE(p.valid);
  const double blur = 0.3f;  // the blur is a float setting
  const double a = 50.0 * 50.0 * sx * sx / (z * z) + blur, c = 60.0 * 60.0 * sy * sy / (z * z) + blur;
  EXPECT_NEAR(p.mean2d[0], 32.0, 1e-12);
  EXPECT_NEAR(p.mean2d[1], 24.0, 1e-12);
  EXPECT_NEAR(p.conic[0], 1 / a, 1e-12);
  EXPECT_NEAR(p.conic[1], 0.0, 1e-12);
  EXPECT_NEAR(p.conic[2], 1 / c, 1e-12);
  EXPECT_NEAR(p.opacity, 1 / (1 + std::exp(-0.4)), 1e-15);
  EXPECT_NEAR(p.depth, z, 1e-12);
}

TEST(Elements, ProjectionOffAxisMatchesEwaFormula) {
  // Off-centre principal point, a rotated anisotropic Gaussian off the axis: compare with J W Sigma W^T J^T
  // written out explicitly.
  const auto cam = axis_camera(70.0f, 65.0f, 20.0f, 30.0f);
  const Vec3<double> mean{{0.4, -0.3, 3.0}};
  const Vec3<double> axis = Vec3<double>{{0.3, 1, -0.2}} / norm(Vec3<double>{{0.3, 1, -0.2}});
  const double angle = 1.1;
  const Vec4<double> q{{std::cos(angle / 2), std::sin(angle / 2) * axis[0], std::sin(angle / 2) * axis[1],
                        std::sin(angle / 2) * axis[2]}};
  const Vec3<double> scales{{0.25, 0.05, 0.12}};
  const Mat3<double> r = rodrigues(axis, angle);
  Mat3<double> sigma = Mat3<double>::zero();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) sigma(i, j) += r(i, k) * scales[k] * scales[k] * r(j, k);
  const double x = mean[0], y = mean[1], z = mean[2];
  const double j00 = 70.0 / z, j02 = -70.0 * x / (z * z), j11 = 65.0 / z, j12 = -65.0 * y / (z * z);
  const double blur = 0.3f;
  const double a = j00 * j00 * sigma(0, 0) + 2 * j00 * j02 * sigma(0, 2) + j02 * j02 * sigma(2, 2) + blur;
  const double b = j00 * j11 * sigma(0, 1) + j00 * j12 * sigma(0, 2) + j02 * j11 * sigma(2, 1) + j02 * j12 * sigma(2, 2);
  const double c = j11 * j11 * sigma(1, 1) + 2 * j11 * j12 * sigma(1, 2) + j12 * j12 * sigma(2, 2) + blur;
  const Projected<double> p = project_gaussian(mean, Vec3<double>{{std::log(scales[0]), std::log(scales[1]), std::log(scales[2])}},
                                               q, 0.0, cam, 0.3f, false);
  ASSERT_TRUE(p.valid);
  const double det = a * c - b * b;
  EXPECT_NEAR(p.mean2d[0], 70.0 * x / z + 20.0, 1e-12);
  EXPECT_NEAR(p.mean2d[1], 65.0 * y / z + 30.0, 1e-12);
  EXPECT_NEAR(p.conic[0], c / det, 1e-10);
  EXPECT_NEAR(p.conic[1], -b / det, 1e-10);
  EXPECT_NEAR(p.conic[2], a / det, 1e-10);
}

TEST(Elements, AntialiasingCompensatesOpacity) {
  const auto cam = axis_camera(50.0f, 50.0f, 32.0f, 24.0f);
  const double s = 0.02, z = 5.0;  // a small footprint: the blur matters
  const auto p = project_gaussian(Vec3<double>{{0, 0, z}}, Vec3<double>::filled(std::log(s)), Vec4<double>{{1, 0, 0, 0}},
                                  10.0, cam, 0.3f, true);
  const double v = 50.0 * 50.0 * s * s / (z * z);
  const double blur = 0.3f;
  EXPECT_NEAR(p.opacity, (1 / (1 + std::exp(-10.0))) * std::sqrt(v * v / ((v + blur) * (v + blur))), 1e-12);
}

TEST(Elements, CullingBehindNearPlaneAndDegenerate) {
  const auto cam = axis_camera(50.0f, 50.0f, 32.0f, 24.0f);
  const Vec3<double> ls = Vec3<double>::filled(-2.0);
  EXPECT_FALSE(project_gaussian(Vec3<double>{{0, 0, -1}}, ls, Vec4<double>{{1, 0, 0, 0}}, 0.0, cam, 0.3f, false).valid);
  EXPECT_FALSE(project_gaussian(Vec3<double>{{0, 0, 0.001}}, ls, Vec4<double>{{1, 0, 0, 0}}, 0.0, cam, 0.3f, false).valid);
  EXPECT_FALSE(project_gaussian(Vec3<double>{{0, 0, NAN}}, ls, Vec4<double>{{1, 0, 0, 0}}, 0.0, cam, 0.3f, false).valid);
  // A zero-size Gaussian without blur has a singular 2D covariance.
  EXPECT_FALSE(project_gaussian(Vec3<double>{{0, 0, 2}}, Vec3<double>::filled(-1000.0), Vec4<double>{{1, 0, 0, 0}}, 0.0,
                                cam, 0.0f, false).valid);
}

TEST(Elements, ShDegreesMatchExplicitPolynomials) {
  const Vec3<double> d = Vec3<double>{{0.3, -0.5, 0.8}} / norm(Vec3<double>{{0.3, -0.5, 0.8}});
  double y[16];
  sh_basis(3, d, y);
  const double x = d[0], yy = d[1], z = d[2];
  const double pi = 3.14159265358979323846;
  EXPECT_NEAR(y[0], 0.5 * std::sqrt(1 / pi), 1e-15);
  EXPECT_NEAR(y[1], -std::sqrt(3 / (4 * pi)) * yy, 1e-15);
  EXPECT_NEAR(y[2], std::sqrt(3 / (4 * pi)) * z, 1e-15);
  EXPECT_NEAR(y[6], 0.25 * std::sqrt(5 / pi) * (3 * z * z - 1), 1e-14);
  EXPECT_NEAR(y[8], 0.25 * std::sqrt(15 / pi) * (x * x - yy * yy), 1e-14);
  EXPECT_NEAR(y[12], 0.25 * std::sqrt(7 / pi) * z * (5 * z * z - 3), 1e-14);
  EXPECT_NEAR(y[15], -0.25 * std::sqrt(35 / (2 * pi)) * x * (x * x - 3 * yy * yy), 1e-14);
  // The real SH basis is orthonormal on the sphere: check a few pairs by Monte-Carlo-free quadrature over a grid.
  double gram[16][16] = {};
  const int nt = 200, np = 400;
  for (int i = 0; i < nt; ++i) {
    const double theta = (i + 0.5) * pi / nt;
    for (int j = 0; j < np; ++j) {
      const double phi = (j + 0.5) * 2 * pi / np;
      const Vec3<double> dir{{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)}};
      double b[16];
      sh_basis(3, dir, b);
      const double w = std::sin(theta) * (pi / nt) * (2 * pi / np);
      for (int a = 0; a < 16; ++a)
        for (int c = 0; c < 16; ++c) gram[a][c] += w * b[a] * b[c];
    }
  }
  for (int a = 0; a < 16; ++a)
    for (int c = 0; c < 16; ++c) EXPECT_NEAR(gram[a][c], a == c ? 1.0 : 0.0, 2e-4) << a << "," << c;
}

TEST(Elements, ColorClampingMask) {
  double coeffs[3] = {-5.0, 0.0, 1.0};  // degree 0: colour = 0.5 + C0 * coeff
  std::uint8_t mask = 0;
  const auto rgb = sh_color(0, coeffs, Vec3<double>{{0, 0, 1}}, Vec3<float>::zero(), mask);
  EXPECT_EQ(rgb[0], 0.0);
  EXPECT_EQ(mask, 1u);
  EXPECT_NEAR(rgb[1], 0.5, 1e-15);
  EXPECT_NEAR(rgb[2], 0.5 + 0.28209479177387814, 1e-15);
}

TEST(Elements, TileRectanglesCoverTheFootprint) {
  const TileGrid g = make_tile_grid(100, 40);  // 7 x 3 tiles
  EXPECT_EQ(g.tiles_x, 7);
  EXPECT_EQ(g.tiles_y, 3);
  const TileRect r = footprint_tiles(40.0f, 20.0f, 10.0f, 10.0f, g);  // pixels 29.5..49.5 -> tiles 1..3, rows 0..1
  EXPECT_EQ(r.x0, 1);
  EXPECT_EQ(r.x1, 4);
  EXPECT_EQ(r.y0, 0);
  EXPECT_EQ(r.y1, 2);
  const TileRect narrow = footprint_tiles(40.0f, 20.0f, 2.0f, 10.0f, g);  // pixels 37.5..41.5 -> tile 2 only
  EXPECT_EQ(narrow.x0, 2);
  EXPECT_EQ(narrow.x1, 3);
  EXPECT_EQ(narrow.y1 - narrow.y0, 2);
  EXPECT_EQ(footprint_tiles(-50.0f, 20.0f, 10.0f, 10.0f, g).area(), 0);  // off screen
  EXPECT_EQ(footprint_tiles(40.0f, 20.0f, 0.0f, 10.0f, g).area(), 0);
  EXPECT_EQ(footprint_tiles(40.0f, 20.0f, 10.0f, 0.0f, g).area(), 0);
  EXPECT_EQ(footprint_tiles(50.0f, 20.0f, 1e6f, 1e6f, g).area(), 21);  // clamped to the grid
  EXPECT_LT(instance_key(3, 1.0f), instance_key(3, 2.0f));
  EXPECT_LT(instance_key(3, 100.0f), instance_key(4, 0.5f));
}

// Every pixel that gets a fragment lies in a tile of the box footprint_extents gives (so the cut-down box loses no
// fragment), the box never exceeds the footprint square, and faint or elongated splats touch fewer tiles.
TEST(Elements, FootprintExtentsKeepEveryFragment) {
  const ProjectionCamera cam = axis_camera(120.0f, 120.0f, 96.0f, 64.0f, 192, 128);
  const TileGrid grid = make_tile_grid(cam.width, cam.height);
  const Thresholds th;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  long square_tiles = 0, box_tiles = 0, fragments = 0;
  int culled = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Vec3<float> mean{{2.0f * u01(rng) - 1.0f, 1.4f * u01(rng) - 0.7f, 3.0f + 2.0f * u01(rng)}};
    // Scales from isotropic to needle-like (up to 1:100), any orientation, opacities from invisible to opaque.
    const Vec3<float> log_scale{{std::log(0.002f + 0.2f * u01(rng)), std::log(0.002f + 0.05f * u01(rng)),
                                 std::log(0.002f + 0.2f * u01(rng))}};
    const Vec4<float> quat{{u01(rng) - 0.5f, u01(rng) - 0.5f, u01(rng) - 0.5f, u01(rng) - 0.5f}};
    const float logit = 14.0f * u01(rng) - 9.0f;  // opacity 1.2e-4 .. 0.993
    const Projected<float> pr = project_gaussian(mean, log_scale, quat, logit, cam, 0.3f, false);
    ASSERT_TRUE(pr.valid);
    const float radius = footprint_radius(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], th.extent_sigmas);
    const Extents ext =
        footprint_extents(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], pr.opacity, th.extent_sigmas, th.min_alpha);
    EXPECT_LE(ext.x, radius);
    EXPECT_LE(ext.y, radius);
    const TileRect square = footprint_tiles(pr.mean2d[0], pr.mean2d[1], radius, radius, grid);
    const TileRect box = footprint_tiles(pr.mean2d[0], pr.mean2d[1], ext.x, ext.y, grid);
    square_tiles += square.area();
    box_tiles += box.area();
    culled += box.area() == 0 && square.area() > 0;
    const Splat<float> sp{pr.mean2d[0], pr.mean2d[1], pr.conic[0], pr.conic[1], pr.conic[2], pr.opacity};
    for (int ty = square.y0; ty < square.y1; ++ty)
      for (int tx = square.x0; tx < square.x1; ++tx)
        for (int y = ty * kTileSize; y < std::min((ty + 1) * kTileSize, cam.height); ++y)
          for (int x = tx * kTileSize; x < std::min((tx + 1) * kTileSize, cam.width); ++x) {
            if (!fragment_at(sp, x + 0.5f, y + 0.5f, th).used) continue;
            ++fragments;
            EXPECT_TRUE(tx >= box.x0 && tx < box.x1 && ty >= box.y0 && ty < box.y1)
                << "trial " << trial << ": fragment at pixel (" << x << ", " << y << ") outside the box";
          }
  }
  EXPECT_GT(fragments, 10000);
  EXPECT_GT(culled, 0);                       // splats fainter than min_alpha everywhere touch no tile
  EXPECT_LT(box_tiles, square_tiles * 3 / 4);  // and the rest touch fewer
  // Without a minimum alpha the box is the square.
  const Extents all = footprint_extents(4.0f, 0.0f, 9.0f, 1e-6f, 3.0f, 0.0f);
  EXPECT_EQ(all.x, footprint_radius(4.0f, 0.0f, 9.0f, 3.0f));
  EXPECT_EQ(all.y, all.x);
  EXPECT_EQ(all.x, 9.0f);  // ceil(3 sqrt(9))
}
