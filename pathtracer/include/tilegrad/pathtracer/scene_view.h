// The prepared scene as plain pointers (host or device memory): sphere geometry and materials, the light
// lists, a bounding volume hierarchy, the camera. Passed by value into kernels and into the CPU loops.
#pragma once
#include <cstdint>

#include "tilegrad/pathtracer/scene.h"

namespace tilegrad::pathtracer {

// Geometry apart from materials: traversal reads 16 (float) bytes per sphere in one load.
template <class T>
struct alignas(4 * sizeof(T)) SphereGeometry {
  T x, y, z, r;
};
template <class T>
struct SphereMaterial {
  Vec3<T> albedo, emission;
};

// Node of the hierarchy (32 bytes). Interior node: count == 0, children at first and first + 1.
// Leaf: count > 0 spheres listed at order[first .. first + count). Boxes are float, rounded outwards.
struct alignas(16) BvhNode {
  float lo[3];
  std::int32_t first;
  float hi[3];
  std::int32_t count;
};

template <class T>
struct SceneView {
  const SphereGeometry<T>* geometry = nullptr;  // [num_spheres]
  const SphereMaterial<T>* material = nullptr;  // [num_spheres]
  const std::int32_t* lights = nullptr;         // [num_lights] ids of the emissive spheres, ascending
  // [num_dormant] ids of the spheres of zero emission, ascending, when the backward samples them as dormant
  // lights (LightSets in scene.h); none in the forward.
  const std::int32_t* dormant = nullptr;
  const BvhNode* nodes = nullptr;               // [num_nodes], root at 0
  const std::uint32_t* order = nullptr;         // sphere ids in leaf order
  int num_spheres = 0, num_lights = 0, num_dormant = 0, num_nodes = 0;
  CameraT<T> camera;

  TG_HD Vec3<T> center(int i) const { return {{geometry[i].x, geometry[i].y, geometry[i].z}}; }
  TG_HD T radius(int i) const { return geometry[i].r; }
  // In the light list (not decided by the emission value: finite differences keep the unperturbed lists).
  TG_HD bool is_light(int i) const {
    int lo = 0, hi = num_lights;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (lights[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return lo < num_lights && lights[lo] == i;
  }
};

}  // namespace tilegrad::pathtracer
