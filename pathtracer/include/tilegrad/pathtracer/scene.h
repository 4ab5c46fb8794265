// Scene description of the path tracer: spheres (centre, radius, albedo, emission), a pinhole camera, and
// the flat parameter vector (10 floats per sphere) that gradients refer to.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tilegrad/core/common.h"
#include "tilegrad/core/vec.h"

namespace tilegrad::pathtracer {

// Parameters of one sphere, in the order of the flat parameter vector and of every gradient row.
enum SphereParam : int {
  kCenterX = 0, kCenterY, kCenterZ, kRadius, kAlbedoR, kAlbedoG, kAlbedoB, kEmissionR, kEmissionG, kEmissionB,
};
inline constexpr int kSphereParams = 10;

template <class T>
struct SphereT {
  Vec3<T> center;
  T radius;
  Vec3<T> albedo;    // Lambertian reflectance per channel, in [0, 1]
  Vec3<T> emission;  // emitted radiance per channel, >= 0; a sphere with any emission > 0 is a light
                     // (and in the backward one with zero emission is a dormant light: see LightSets)

  TG_HD T param(int i) const {
    return i < 3 ? center[i] : (i == 3 ? radius : (i < 7 ? albedo[i - 4] : emission[i - 7]));
  }
  TG_HD void set_param(int i, T x) {
    if (i < 3) center[i] = x;
    else if (i == 3) radius = x;
    else if (i < 7) albedo[i - 4] = x;
    else emission[i - 7] = x;
  }
  TG_HD bool is_light() const { return emission[0] > T(0) || emission[1] > T(0) || emission[2] > T(0); }
};

// Pinhole camera in the OpenCV convention: +x right, +y down, +z forward; pixel (i, j) covers
// [i, i + 1) x [j, j + 1), so its centre is at (i + 0.5, j + 0.5).
template <class T>
struct CameraT {
  int width = 0, height = 0;
  T fx = T(0), fy = T(0), cx = T(0), cy = T(0);
  Mat3<T> rotation = Mat3<T>::identity();  // camera-to-world: columns are the camera axes in world space
  Vec3<T> position = Vec3<T>::zero();      // camera centre in world space
};

template <class T>
struct SceneT {
  CameraT<T> camera;
  std::vector<SphereT<T>> spheres;
  std::size_t num_params() const { return spheres.size() * kSphereParams; }
};

using Sphere = SphereT<float>;
using Camera = CameraT<float>;
using Scene = SceneT<float>;

template <class U, class T>
SphereT<U> sphere_cast(const SphereT<T>& s) {
  return {s.center.template cast<U>(), U(s.radius), s.albedo.template cast<U>(), s.emission.template cast<U>()};
}
template <class U, class T>
CameraT<U> camera_cast(const CameraT<T>& c) {
  CameraT<U> r;
  r.width = c.width;
  r.height = c.height;
  r.fx = U(c.fx);
  r.fy = U(c.fy);
  r.cx = U(c.cx);
  r.cy = U(c.cy);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.rotation(i, j) = U(c.rotation(i, j));
  r.position = c.position.template cast<U>();
  return r;
}
template <class U, class T>
SceneT<U> scene_cast(const SceneT<T>& s) {
  SceneT<U> r;
  r.camera = camera_cast<U>(s.camera);
  r.spheres.reserve(s.spheres.size());
  for (const auto& sp : s.spheres) r.spheres.push_back(sphere_cast<U>(sp));
  return r;
}

// Throws InvalidArgument naming `source` and the field (e.g. "scene.json: spheres[2].radius: ...") when a
// value is not finite, a radius or focal length is not positive, an albedo leaves [0, 1], an emission is
// negative, the image size is not positive, or the rotation is not orthonormal.
void validate_scene(const Scene& scene, const std::string& source = "scene");
void validate_camera(const Camera& camera, const std::string& source = "camera");

// The flat parameter vector: sphere i occupies [10 i, 10 i + 10) in SphereParam order.
template <class T>
std::vector<T> pack_params(const SceneT<T>& scene) {
  std::vector<T> p(scene.num_params());
  for (std::size_t i = 0; i < scene.spheres.size(); ++i)
    for (int k = 0; k < kSphereParams; ++k) p[i * kSphereParams + k] = scene.spheres[i].param(k);
  return p;
}
// Throws InvalidArgument when the size is not 10 x the number of spheres.
void check_param_count(std::size_t got, std::size_t spheres);
template <class T>
void unpack_params(SceneT<T>& scene, const std::vector<T>& p) {
  check_param_count(p.size(), scene.spheres.size());
  for (std::size_t i = 0; i < scene.spheres.size(); ++i)
    for (int k = 0; k < kSphereParams; ++k) scene.spheres[i].set_param(k, p[i * kSphereParams + k]);
}

// The spheres next-event estimation samples. The forward samples `lights`: the spheres with emission > 0.
// The backward also samples the others as `dormant` lights, lights of zero emission (a second light sample
// per vertex whose value is 0), so that the emission gradient of a sphere at zero emission includes the light
// it would cast: the derivative from the right, where emission is allowed (docs/PATHTRACER.md, "Emission at
// zero"). Finite differences render the perturbed scene with the sets of the unperturbed one, which holds
// the sampler fixed (reference_render).
struct LightSets {
  std::vector<int> lights, dormant;  // sphere ids, ascending, disjoint
};
// The scene's lights; with `dormant`, every other sphere as a dormant light.
template <class T>
LightSets light_sets(const SceneT<T>& scene, bool dormant) {
  LightSets l;
  for (std::size_t i = 0; i < scene.spheres.size(); ++i) {
    if (scene.spheres[i].is_light()) l.lights.push_back(static_cast<int>(i));
    else if (dormant) l.dormant.push_back(static_cast<int>(i));
  }
  return l;
}
// Throws InvalidArgument when an id is out of range, a list is not ascending, or a sphere is in both.
void validate_light_sets(const LightSets& sets, std::size_t spheres);

// A camera at `eye` looking at `target` with `up` pointing up in the image; vertical field of view in degrees;
// the principal point at the image centre.
Camera look_at(const Vec3<float>& eye, const Vec3<float>& target, const Vec3<float>& up, int width, int height,
               float fov_y_degrees);
// The same camera at another resolution (focal lengths and principal point scaled).
Camera resized(const Camera& camera, int width, int height);

}  // namespace tilegrad::pathtracer
