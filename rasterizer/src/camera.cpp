// Camera constructors and validation.
#include "tilegrad/rasterizer/camera.h"

#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/element/projection.h"

namespace tilegrad::raster {
namespace {

// Inverts a rigid camera-to-world transform (rows of R_c2w are the camera axes' world coordinates transposed).
Camera from_c2w(const float m[16], bool opengl, float fx, float fy, float cx, float cy, int width, int height) {
  Camera cam{fx, fy, cx, cy, width, height};
  // OpenGL -> OpenCV axes: flip the camera's y and z.
  const float flip[3] = {1.0f, opengl ? -1.0f : 1.0f, opengl ? -1.0f : 1.0f};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) cam.rotation(r, c) = m[c * 4 + r] * flip[r];  // R_w2c = (R_c2w F)^T
  const Vec3<float> centre{{m[3], m[7], m[11]}};
  cam.translation = -(cam.rotation * centre);
  return cam;
}

}  // namespace

Camera Camera::from_camera_to_world_opengl(const float c2w[16], float fx, float fy, float cx, float cy, int width,
                                           int height) {
  return from_c2w(c2w, true, fx, fy, cx, cy, width, height);
}

Camera Camera::from_camera_to_world_opencv(const float c2w[16], float fx, float fy, float cx, float cy, int width,
                                           int height) {
  return from_c2w(c2w, false, fx, fy, cx, cy, width, height);
}

Camera Camera::look_at(const Vec3<float>& eye, const Vec3<float>& target, const Vec3<float>& up, float fov_y,
                       int width, int height) {
  const Vec3<float> forward = (target - eye) / norm(target - eye);
  Vec3<float> right = cross(forward, up);
  TG_CHECK_ARG(norm(right) > 1e-6f, "look_at: up is parallel to the viewing direction");
  right = right / norm(right);
  const Vec3<float> down = cross(forward, right);
  float c2w[16] = {right[0], down[0], forward[0], eye[0], right[1], down[1], forward[1], eye[1],
                   right[2], down[2], forward[2], eye[2], 0,        0,       0,          1};
  const float f = 0.5f * static_cast<float>(height) / std::tan(0.5f * fov_y);
  return from_c2w(c2w, false, f, f, 0.5f * static_cast<float>(width), 0.5f * static_cast<float>(height), width,
                  height);
}

Vec3<float> Camera::position() const { return -(rotation.transposed() * translation); }

Camera crop_camera(const Camera& camera, int x, int y, int width, int height) {
  TG_CHECK_ARG(x >= 0 && y >= 0 && width >= 0 && height >= 0 && x + width <= camera.width &&
                   y + height <= camera.height,
               "crop_camera: window [", x, ", ", x + width, ") x [", y, ", ", y + height, ") is not inside the ",
               camera.width, "x", camera.height, " image");
  Camera c = camera;
  if (c.guard_half_width <= 0.0f) c.guard_half_width = guard_half_extent(camera.cx, camera.width);
  if (c.guard_half_height <= 0.0f) c.guard_half_height = guard_half_extent(camera.cy, camera.height);
  c.cx = camera.cx - static_cast<float>(x);
  c.cy = camera.cy - static_cast<float>(y);
  c.width = width;
  c.height = height;
  return c;
}

Camera resized_camera(const Camera& camera, int width, int height) {
  TG_CHECK_ARG(camera.width > 0 && camera.height > 0 && width > 0 && height > 0, "resized_camera: cannot resize a ",
               camera.width, "x", camera.height, " image to ", width, "x", height, " (sizes must be positive)");
  const float sx = static_cast<float>(width) / static_cast<float>(camera.width);
  const float sy = static_cast<float>(height) / static_cast<float>(camera.height);
  Camera c = camera;
  c.fx *= sx;
  c.cx *= sx;
  c.guard_half_width *= sx;  // 0 (this image's own) stays 0
  c.fy *= sy;
  c.cy *= sy;
  c.guard_half_height *= sy;
  c.width = width;
  c.height = height;
  return c;
}

void validate(const Camera& c) {
  auto finite = [](float x) { return std::isfinite(x); };
  TG_CHECK_ARG(finite(c.fx) && finite(c.fy) && c.fx > 0 && c.fy > 0, "camera: focal lengths must be positive and "
               "finite (fx=", c.fx, ", fy=", c.fy, ")");
  TG_CHECK_ARG(finite(c.cx) && finite(c.cy), "camera: principal point must be finite");
  TG_CHECK_ARG(c.width >= 0 && c.height >= 0, "camera: negative image size ", c.width, "x", c.height);
  TG_CHECK_ARG(finite(c.guard_half_width) && finite(c.guard_half_height) && c.guard_half_width >= 0 &&
                   c.guard_half_height >= 0,
               "camera: guard half extents must be >= 0 and finite (", c.guard_half_width, ", ",
               c.guard_half_height, ")");
  TG_CHECK_ARG(c.near_plane > 0 && c.near_plane < c.far_plane, "camera: need 0 < near < far (near=", c.near_plane,
               ", far=", c.far_plane, ")");
  for (int r = 0; r < 3; ++r) {
    TG_CHECK_ARG(finite(c.translation[r]), "camera: translation is not finite");
    for (int k = 0; k < 3; ++k) TG_CHECK_ARG(finite(c.rotation(r, k)), "camera: rotation is not finite");
  }
  const Mat3<float> rrt = c.rotation * c.rotation.transposed();
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      TG_CHECK_ARG(std::fabs(rrt(r, k) - (r == k ? 1.0f : 0.0f)) < 1e-3f,
                   "camera: rotation is not orthonormal (R R^T differs from I by more than 1e-3)");
  TG_CHECK_ARG(determinant(c.rotation) > 0, "camera: rotation has determinant <= 0 (a reflection)");
}

}  // namespace tilegrad::raster
