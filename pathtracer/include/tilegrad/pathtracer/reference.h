// The CPU reference in float or double (double for validation): images and gradients summed directly in
// the scalar type, in a fixed order, with the interior and boundary terms kept apart.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/pathtracer/scene.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::pathtracer {

// [height][width][3] linear radiance. sets: the light lists to sample (validated), null for the forward's (the
// scene's lights). Finite differences pass light_sets(unperturbed scene, true): every sphere stays in its list
// (light or dormant light) whatever its perturbed emission, which holds the sampler fixed; such a render is an
// unbiased estimate of the perturbed image and, at the unperturbed scene, equal to the forward's to the bit.
template <class T>
std::vector<T> reference_render(const SceneT<T>& scene, const RenderSettings& settings,
                                const LightSets* sets = nullptr);

template <class T>
struct ReferenceGradient {
  std::vector<T> interior, boundary;  // [spheres x 10] each
  std::vector<T> total() const {
    std::vector<T> t(interior);
    for (std::size_t i = 0; i < t.size(); ++i) t[i] += boundary[i];
    return t;
  }
};

// Gradient of sum(d_image * image) w.r.t. the sphere parameters; terms the settings switch off are zero.
template <class T>
ReferenceGradient<T> reference_gradient(const SceneT<T>& scene, const RenderSettings& settings,
                                        const GradientSettings& gradient, const std::vector<T>& d_image);

// Per pixel, a hash of the discrete decisions of all its samples (spheres hit, lights chosen, shadow rays
// blocked or not). Where the signature stays the same under a parameter change, no edge crossed any of the
// pixel's samples: the interior term alone is its derivative.
template <class T>
std::vector<std::uint64_t> reference_decisions(const SceneT<T>& scene, const RenderSettings& settings);

}  // namespace tilegrad::pathtracer
