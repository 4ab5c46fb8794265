// Camera constructors: axes conventions and validation.
#include <gtest/gtest.h>

#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/camera.h"

using namespace tilegrad;
using namespace tilegrad::raster;

TEST(Camera, OpenGlCameraToWorldLooksDownMinusZ) {
  // An OpenGL camera at (1, 2, 3) with identity rotation looks down world -z, y up.
  const float c2w[16] = {1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1};
  const Camera cam = Camera::from_camera_to_world_opengl(c2w, 100, 100, 50, 40, 100, 80);
  const Vec3<float> ahead{{1, 2, -2}}, above{{1, 3, 2}};
  const Vec3<float> p = cam.rotation * ahead + cam.translation;
  EXPECT_NEAR(p[0], 0, 1e-6);
  EXPECT_NEAR(p[1], 0, 1e-6);
  EXPECT_NEAR(p[2], 5, 1e-6);  // in front, positive z in OpenCV axes
  const Vec3<float> q = cam.rotation * above + cam.translation;
  EXPECT_LT(q[1], 0);  // world up is image up: negative camera y
  const Vec3<float> c = cam.position();
  EXPECT_NEAR(c[0], 1, 1e-6);
  EXPECT_NEAR(c[1], 2, 1e-6);
  EXPECT_NEAR(c[2], 3, 1e-6);
  EXPECT_NO_THROW(validate(cam));
}

TEST(Camera, LookAtPutsTheTargetAtThePrincipalPoint) {
  const Camera cam = Camera::look_at({{3, 1, -2}}, {{0, 0.5f, 1}}, {{0, 1, 0}}, 0.8f, 64, 48);
  const Vec3<float> p = cam.rotation * Vec3<float>{{0, 0.5f, 1}} + cam.translation;
  EXPECT_NEAR(p[0] / p[2], 0, 1e-6);
  EXPECT_NEAR(p[1] / p[2], 0, 1e-6);
  EXPECT_GT(p[2], 0);
  const Vec3<float> up = cam.rotation * Vec3<float>{{0, 1.5f, 1}} + cam.translation;
  EXPECT_LT(up[1], 0);
  EXPECT_NEAR(cam.fy, 0.5f * 48 / std::tan(0.4f), 1e-3);
  EXPECT_NO_THROW(validate(cam));
}

TEST(Camera, ResizedCameraKeepsTheViewAndScalesPixels) {
  const float c2w[16] = {1, 0, 0, 0.5f, 0, 1, 0, -0.2f, 0, 0, 1, 4, 0, 0, 0, 1};
  const Camera cam = Camera::from_camera_to_world_opengl(c2w, 1424.0f, 1238.0f, 960.0f, 540.0f, 1920, 1080);
  const Camera big = resized_camera(cam, 3840, 2160), small = resized_camera(cam, 1280, 720);
  EXPECT_EQ(big.width, 3840);
  EXPECT_EQ(small.height, 720);
  auto pixel = [](const Camera& c, const Vec3<float>& w) {
    const Vec3<float> p = c.rotation * w + c.translation;
    return std::pair<float, float>{c.fx * p[0] / p[2] + c.cx, c.fy * p[1] / p[2] + c.cy};
  };
  for (const Vec3<float>& w : {Vec3<float>{{0.3f, 0.1f, -1}}, Vec3<float>{{-1.2f, 0.7f, -3}}}) {
    const auto [u, v] = pixel(cam, w);
    const auto [ub, vb] = pixel(big, w);
    const auto [us, vs] = pixel(small, w);
    EXPECT_NEAR(ub, 2 * u, 1e-3f);
    EXPECT_NEAR(vb, 2 * v, 1e-3f);
    EXPECT_NEAR(us, u * 2 / 3, 1e-3f);
    EXPECT_NEAR(vs, v * 2 / 3, 1e-3f);
  }
  EXPECT_NO_THROW(validate(big));
  Camera guarded = cam;
  guarded.guard_half_width = 1000.0f;
  EXPECT_FLOAT_EQ(resized_camera(guarded, 3840, 1080).guard_half_width, 2000.0f);
  EXPECT_THROW(resized_camera(cam, 0, 720), InvalidArgument);
}

TEST(Camera, ValidationNamesTheProblem) {
  Camera c;
  c.width = 10;
  c.height = 10;
  c.fx = 0;
  EXPECT_THROW(validate(c), InvalidArgument);
  c.fx = 1;
  c.rotation(0, 0) = 2;  // not a rotation
  EXPECT_THROW(validate(c), InvalidArgument);
  c.rotation = Mat3<float>::identity();
  c.rotation(2, 2) = -1;  // a reflection
  c.rotation(1, 1) = 1;
  EXPECT_THROW(validate(c), InvalidArgument);
  c.rotation = Mat3<float>::identity();
  c.near_plane = 5;
  c.far_plane = 1;
  EXPECT_THROW(validate(c), InvalidArgument);
}
