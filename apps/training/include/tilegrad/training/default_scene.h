// The project's own default scene: a procedural Gaussian still life (a checkered plate, a striped sphere, a
// rainbow torus, a coloured box and a spiral of beads) rendered by the rasterizer into a NeRF-synthetic dataset
// folder (RGBA PNGs + transforms_{train,test}.json), so training needs no downloaded data.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/core/device.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::training {

// The scene on the host: about 3,100 Gaussians inside the cube [-1, 1]^3, z up, SH degree 1 (some
// view-dependent shading). The same seed gives the same scene.
raster::Gaussians make_default_scene(std::uint64_t seed = 0);

struct SceneViewOptions {
  int width = 400, height = 400;
  int train_views = 100, test_views = 200;
  float camera_distance = 4.0f;
  float fov_x = 0.6911112f;  // NeRF-synthetic's camera_angle_x
  std::uint64_t seed = 0;    // train camera placement
  Device device = Device::Cpu;
};

// Camera-to-world matrices (OpenGL axes, row-major 4x4) looking at the origin with +z up: train cameras on a
// Fibonacci spiral over elevations 10..80 degrees (turned by a seeded azimuth), test cameras on a ring 30
// degrees up at azimuths no train camera shares.
struct ScenePoses {
  std::vector<std::array<float, 16>> train, test;
};
ScenePoses scene_poses(const SceneViewOptions& options);

// Renders `scene` from train cameras spread over the upper hemisphere and test cameras on a ring 30 degrees up,
// and writes <folder>/train/r_<i>.png, <folder>/test/r_<i>.png (straight RGBA), transforms_train.json and
// transforms_test.json (camera-to-world in OpenGL axes, as Blender writes them).
void write_synthetic_dataset(const std::string& folder, const raster::Gaussians& scene,
                             const SceneViewOptions& options);

// Renders `scene` (on options.device) from camera-to-world poses (OpenGL axes, row-major 4x4) into
// <folder>/<split>/r_<i>.png and <folder>/transforms_<split>.json, as write_synthetic_dataset does for its own
// cameras (options: image size, fov_x, device).
void write_dataset_split(const std::string& folder, const std::string& split,
                         const std::vector<std::array<float, 16>>& poses, const raster::Gaussians& scene,
                         const SceneViewOptions& options);

}  // namespace tilegrad::training
