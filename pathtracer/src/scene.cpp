// Scene validation, parameter packing checks and camera helpers.
#include "tilegrad/pathtracer/scene.h"

#include <cmath>

#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {
namespace {

void check_finite(float x, const std::string& where) {
  TG_CHECK_ARG(std::isfinite(x), where, ": must be a finite number (got ", x, ")");
}
void check_vec(const Vec3<float>& v, const std::string& where, float lo, float hi, const char* range) {
  for (int i = 0; i < 3; ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    check_finite(v[i], at);
    TG_CHECK_ARG(v[i] >= lo && v[i] <= hi, at, ": must be ", range, " (got ", v[i], ")");
  }
}

}  // namespace

void validate_camera(const Camera& cam, const std::string& source) {
  const std::string at = source + ": camera";
  TG_CHECK_ARG(cam.width > 0 && cam.height > 0, at, ": width and height must be positive (got ", cam.width, " x ",
               cam.height, ")");
  TG_CHECK_ARG(cam.width <= 16384 && cam.height <= 16384, at, ": width and height must be at most 16384 (got ",
               cam.width, " x ", cam.height, ")");
  check_finite(cam.fx, at + ".fx");
  check_finite(cam.fy, at + ".fy");
  check_finite(cam.cx, at + ".cx");
  check_finite(cam.cy, at + ".cy");
  TG_CHECK_ARG(cam.fx > 0 && cam.fy > 0, at, ": fx and fy must be positive (got ", cam.fx, ", ", cam.fy, ")");
  for (int i = 0; i < 3; ++i) {
    check_finite(cam.position[i], at + ".position[" + std::to_string(i) + "]");
    for (int j = 0; j < 3; ++j) check_finite(cam.rotation(i, j), at + ".rotation");
  }
  // Orthonormal columns, right-handed (determinant +1), to float tolerance.
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      const float d = dot(cam.rotation.col(a), cam.rotation.col(b));
      TG_CHECK_ARG(std::fabs(d - (a == b ? 1.0f : 0.0f)) < 1e-4f, at,
                   ": the camera-to-world rotation must be orthonormal (columns ", a, " and ", b, " have dot ", d, ")");
    }
  TG_CHECK_ARG(determinant(cam.rotation) > 0.0f, at, ": the camera-to-world rotation must have determinant +1");
}

void validate_scene(const Scene& scene, const std::string& source) {
  validate_camera(scene.camera, source);
  TG_CHECK_ARG(scene.spheres.size() <= (std::size_t(1) << 24), source, ": at most 2^24 spheres (got ",
               scene.spheres.size(), ")");
  for (std::size_t i = 0; i < scene.spheres.size(); ++i) {
    const Sphere& s = scene.spheres[i];
    const std::string at = source + ": spheres[" + std::to_string(i) + "]";
    for (int k = 0; k < 3; ++k) check_finite(s.center[k], at + ".center[" + std::to_string(k) + "]");
    check_finite(s.radius, at + ".radius");
    TG_CHECK_ARG(s.radius > 0.0f, at, ".radius: must be positive (got ", s.radius, ")");
    check_vec(s.albedo, at + ".albedo", 0.0f, 1.0f, "in [0, 1]");
    check_vec(s.emission, at + ".emission", 0.0f, INFINITY, "non-negative");
  }
}

void validate_light_sets(const LightSets& sets, std::size_t spheres) {
  std::vector<char> seen(spheres, 0);
  auto check = [&](const std::vector<int>& ids, const char* name) {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      TG_CHECK_ARG(ids[k] >= 0 && static_cast<std::size_t>(ids[k]) < spheres, "light sets: ", name, "[", k,
                   "] = ", ids[k], " is not a sphere (the scene has ", spheres, ")");
      TG_CHECK_ARG(k == 0 || ids[k] > ids[k - 1], "light sets: ", name, " must be ascending without repeats (",
                   ids[k], " after ", k == 0 ? -1 : ids[k - 1], ")");
      TG_CHECK_ARG(!seen[ids[k]], "light sets: sphere ", ids[k], " is both a light and a dormant light");
      seen[ids[k]] = 1;
    }
  };
  check(sets.lights, "lights");
  check(sets.dormant, "dormant");
}

void check_param_count(std::size_t got, std::size_t spheres) {
  TG_CHECK_ARG(got == spheres * kSphereParams, "parameter vector: expected ", spheres * kSphereParams, " values (",
               kSphereParams, " per sphere, ", spheres, " spheres), got ", got);
}

Camera look_at(const Vec3<float>& eye, const Vec3<float>& target, const Vec3<float>& up, int width, int height,
               float fov_y_degrees) {
  TG_CHECK_ARG(fov_y_degrees > 0.0f && fov_y_degrees < 180.0f, "look_at: the field of view must be in (0, 180) degrees");
  const Vec3<float> z = target - eye;
  TG_CHECK_ARG(norm(z) > 0.0f, "look_at: eye and target coincide");
  const Vec3<float> fwd = z / norm(z);
  Vec3<float> right = cross(fwd, up);
  TG_CHECK_ARG(norm(right) > 1e-6f, "look_at: the up vector is parallel to the viewing direction");
  right = right / norm(right);
  const Vec3<float> down = cross(fwd, right);
  Camera cam;
  cam.width = width;
  cam.height = height;
  cam.fy = 0.5f * static_cast<float>(height) / std::tan(0.5f * fov_y_degrees * 3.14159265358979f / 180.0f);
  cam.fx = cam.fy;
  cam.cx = 0.5f * static_cast<float>(width);
  cam.cy = 0.5f * static_cast<float>(height);
  for (int i = 0; i < 3; ++i) {
    cam.rotation(i, 0) = right[i];
    cam.rotation(i, 1) = down[i];
    cam.rotation(i, 2) = fwd[i];
  }
  cam.position = eye;
  return cam;
}

Camera resized(const Camera& camera, int width, int height) {
  TG_CHECK_ARG(width > 0 && height > 0, "resized: width and height must be positive (got ", width, " x ", height, ")");
  Camera c = camera;
  const float sx = static_cast<float>(width) / static_cast<float>(camera.width);
  const float sy = static_cast<float>(height) / static_cast<float>(camera.height);
  c.width = width;
  c.height = height;
  c.fx *= sx;
  c.cx *= sx;
  c.fy *= sy;
  c.cy *= sy;
  return c;
}

}  // namespace tilegrad::pathtracer
