// Render and gradient settings of the path tracer: integrator, samples, soft visibility, strategy, edges.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/common.h"

namespace tilegrad::pathtracer {

enum class Integrator {
  Primary,  // camera ray: emission of the hit sphere + unshadowed shading by one light (closed form)
  Direct,   // camera ray: emission + one shadow ray to a light sampled in its cone (next-event estimation)
  Path,     // up to max_depth (1..3) Lambertian vertices, next-event estimation at each
};
const char* to_string(Integrator integrator);
// Accepts primary, direct, path (case-insensitive).
Integrator parse_integrator(std::string_view name);

inline constexpr int kMaxDepth = 3;
// Soft visibility blends every sphere into every ray: kept to small scenes (cost grows with the square).
inline constexpr int kMaxSoftSpheres = 16;

struct RenderSettings {
  Integrator integrator = Integrator::Primary;
  int spp = 4;               // samples per pixel, >= 1
  int max_depth = kMaxDepth; // Path only: number of surface vertices, 1..3
  std::uint32_t seed = 0;    // counter-based sampler: (seed, pixel, sample, dimension) -> number
  // Soft visibility: coverage sigmoid(-(signed ray-to-sphere distance) / softness), order blended with
  // sigmoid((depth difference) / depth_softness); primary visibility only; smooth in every parameter.
  bool soft = false;
  float softness = 0.02f;       // world units
  float depth_softness = 0.1f;  // world units
};

struct GradientSettings {
  Accumulation strategy = Accumulation::Owned;
  bool interior = true;  // AD of the per-sample estimator
  bool boundary = true;  // edge sampling of the sphere silhouettes seen from the camera
  // Hard visibility: sample the spheres of zero emission as dormant lights (LightSets in scene.h), so that
  // their emission gradient includes the light they would cast. One more light sample (a shadow ray for
  // direct and path) and contribution per vertex, and every tile lists every such sphere (Owned falls back
  // to SortReduce beyond 64); off: their emission gradient counts only where they are seen.
  bool dormant_lights = true;
  // Edge samples per sphere: edge_density per pixel of visible silhouette length, clamped to [min, max].
  float edge_density = 1.0f;
  int edge_min_samples = 8;
  int edge_max_samples = 1 << 15;
};

// Throws InvalidArgument naming the field.
void validate(const RenderSettings& settings);
void validate(const GradientSettings& settings);

// Vertices a path of these settings visits (1, or max_depth for Path).
TG_HD inline int path_depth(const RenderSettings& s) { return s.integrator == Integrator::Path ? s.max_depth : 1; }

// Whether the backward samples dormant lights: asked for, hard visibility, and a sphere of zero emission.
inline bool samples_dormant(const RenderSettings& rs, const GradientSettings& gs, std::size_t num_dormant) {
  return gs.dormant_lights && !rs.soft && num_dormant > 0;
}

}  // namespace tilegrad::pathtracer
