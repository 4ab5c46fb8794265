// Host-side preparation of a scene for rendering: geometry/material arrays, the light lists, the hierarchy.
#pragma once
#include <vector>

#include "tilegrad/pathtracer/bvh.h"
#include "tilegrad/pathtracer/scene.h"
#include "tilegrad/pathtracer/scene_view.h"

namespace tilegrad::pathtracer {

template <class T>
struct PreparedScene {
  CameraT<T> camera;
  std::vector<SphereGeometry<T>> geometry;
  std::vector<SphereMaterial<T>> material;
  std::vector<std::int32_t> lights, dormant;  // LightSets: dormant holds every sphere that is not a light
  Bvh bvh;

  std::size_t num_spheres() const { return geometry.size(); }
  // A view of the host arrays (valid while this object lives and is not modified); with_dormant: the
  // backward's view, which samples the dormant lights.
  SceneView<T> view(bool with_dormant = false) const {
    SceneView<T> v;
    v.geometry = geometry.data();
    v.material = material.data();
    v.lights = lights.data();
    v.dormant = dormant.data();
    v.nodes = bvh.nodes.data();
    v.order = bvh.order.data();
    v.num_spheres = static_cast<int>(geometry.size());
    v.num_lights = static_cast<int>(lights.size());
    v.num_dormant = with_dormant ? static_cast<int>(dormant.size()) : 0;
    v.num_nodes = static_cast<int>(bvh.nodes.size());
    v.camera = camera;
    return v;
  }
};

// sets: the light lists to sample (validated), or null for those of the scene (light_sets(scene, true)).
template <class T>
PreparedScene<T> prepare_scene(const SceneT<T>& scene, const LightSets* sets = nullptr) {
  PreparedScene<T> p;
  p.camera = scene.camera;
  p.geometry.reserve(scene.spheres.size());
  p.material.reserve(scene.spheres.size());
  for (std::size_t i = 0; i < scene.spheres.size(); ++i) {
    const SphereT<T>& s = scene.spheres[i];
    p.geometry.push_back({s.center[0], s.center[1], s.center[2], s.radius});
    p.material.push_back({s.albedo, s.emission});
  }
  const LightSets own = sets ? LightSets{} : light_sets(scene, true);
  if (sets) validate_light_sets(*sets, scene.spheres.size());
  const LightSets& l = sets ? *sets : own;
  p.lights.assign(l.lights.begin(), l.lights.end());
  p.dormant.assign(l.dormant.begin(), l.dormant.end());
  p.bvh = build_bvh(p.geometry);
  return p;
}

}  // namespace tilegrad::pathtracer
