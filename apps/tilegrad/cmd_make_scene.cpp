// `tilegrad make-scene`: writes the embedded default scene as a NeRF-synthetic dataset folder (multi-view RGBA
// renders made with the rasterizer, transforms_{train,test}.json), and optionally the scene itself as a .ply.
// With --lens or --format it writes a synthetic capture through a lens instead (lens_capture.h).
// With --garden, the garden grid benchmark scene instead (a large field seen from low aerial views, with its
// points as points3d.ply): the large scene of multi-GPU training (docs/PERFORMANCE.md).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_checks.h"
#include "commands.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/profiling/garden_grid.h"
#include "tilegrad/training/config.h"
#include "tilegrad/core/error.h"
#include "tilegrad/training/default_scene.h"
#include "tilegrad/training/lens_capture.h"

namespace tilegrad::cli {
namespace {

struct MakeSceneArgs {
  std::string out, ply, device = "auto";
  training::SceneViewOptions views;
  std::uint64_t scene_seed = 0;
  std::string garden;  // points.ply of the garden grid workload
  int grid = 1;
  float height = 1.5f;
  // A capture through a lens (lens_capture.h).
  std::string lens, format;
  std::vector<double> lens_params;
  training::CaptureOptions capture;
};

raster::LensModel lens_model_from_name(const std::string& name) {
  if (name == "PINHOLE") return raster::LensModel::Pinhole;
  for (int m = 0; m < raster::kLensModelCount; ++m)
    if (name == raster::to_string(raster::LensModel(m))) return raster::LensModel(m);
  throw InvalidArgument("--lens: unknown model '" + name +
                        "' (PINHOLE, SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV, OPENCV_FISHEYE, "
                        "SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE, FOV)");
}

// Camera-to-world (OpenGL axes, row-major 4x4) at `eye` looking at `target`, +z up.
std::array<float, 16> look_at(const std::array<float, 3>& eye, const std::array<float, 3>& target) {
  float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
  const float fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (float& v : f) v /= fl;
  float r[3] = {f[1], -f[0], 0.0f};  // f x z
  const float rl = std::sqrt(r[0] * r[0] + r[1] * r[1]);
  for (float& v : r) v /= rl;
  const float u[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
  return {r[0], u[0], -f[0], eye[0], r[1], u[1], -f[1], eye[1], r[2], u[2], -f[2], eye[2], 0, 0, 0, 1};
}

// Low aerial views over the garden grid (the field spans [-2G, 2G] in x and y, z up): positions on a
// golden-ratio lattice over 85% of the field at `height`, each looking down towards a ground point 1.5 x height
// away in a direction of its own (kept on that part of the field, so no view looks past its edge). `offset`
// shifts the lattice (test views between train views).
std::vector<std::array<float, 16>> aerial_views(int count, int grid, float height, float offset) {
  std::vector<std::array<float, 16>> poses;
  const float half = 0.85f * 2.0f * float(grid);
  for (int i = 0; i < count; ++i) {
    const float fi = float(i) + offset;
    const float x = half * (2.0f * std::fmod(fi * 0.6180340f, 1.0f) - 1.0f);
    const float y = half * (2.0f * (fi + 0.5f) / float(count) - 1.0f);
    const float a = 6.2831853f * std::fmod(fi * 0.7548777f, 1.0f);
    const float reach = 1.5f * height;
    const float tx = std::clamp(x + reach * std::cos(a), -half, half), ty = std::clamp(y + reach * std::sin(a), -half, half);
    poses.push_back(look_at({x, y, height}, {tx, ty, 0.0f}));
  }
  return poses;
}

void run_make_garden(MakeSceneArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  TG_CHECK_ARG(a.grid >= 1 && a.grid % 2 == 1, "--grid must be odd, got ", a.grid);
  profiling::GardenGridOptions g;
  g.grid = a.grid;
  g.seed = a.scene_seed;
  const raster::Gaussians scene = profiling::make_garden_grid(io::read_points_ply(a.garden), g);
  // The Gaussians' centres and DC colours are the dataset's points (points3d.ply: training starts from them).
  io::PointCloud points;
  points.positions = scene.means.to_vector();
  const std::vector<float> sh = scene.sh.to_vector();
  const std::size_t k = sh.size() / std::max<std::size_t>(scene.count(), 1);
  for (std::size_t i = 0; i < scene.count(); ++i)
    for (int c = 0; c < 3; ++c)
      points.colors.push_back(
          std::uint8_t(std::clamp(0.5f + 0.28209479f * sh[i * k + std::size_t(c)], 0.0f, 1.0f) * 255.0f + 0.5f));
  const raster::Gaussians on_device = scene.to(a.views.device);
  training::write_dataset_split(a.out, "train", aerial_views(a.views.train_views, a.grid, a.height, 0.0f), on_device,
                                a.views);
  if (a.views.test_views > 0)
    training::write_dataset_split(a.out, "test", aerial_views(a.views.test_views, a.grid, a.height, 0.5f),
                                  on_device, a.views);
  io::write_points_ply(a.out + "/points3d.ply", points);
  if (!a.ply.empty()) io::write_gaussians_ply(a.ply, scene);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("garden grid %d: %zu Gaussians, %d train + %d test views of %dx%d and points3d.ply written to %s "
              "(%.1f s on %s)\n",
              a.grid, scene.count(), a.views.train_views, a.views.test_views, a.views.width, a.views.height,
              a.out.c_str(), seconds, to_string(a.views.device));
}

void run_make_scene(MakeSceneArgs& a) {
  a.views.device = training::device_from_option(a.device);
  if (!a.garden.empty()) {
    TG_CHECK_ARG(a.lens.empty() && a.format.empty(),
                 "--garden writes pinhole views of the garden grid: --lens and --format apply to the default scene");
    run_make_garden(a);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const raster::Gaussians scene = training::make_default_scene(a.scene_seed);
  const bool capture = !a.lens.empty() || !a.format.empty();
  if (capture) {
    training::CaptureOptions& c = a.capture;
    c.views = a.views;
    c.lens.model = lens_model_from_name(a.lens.empty() ? "PINHOLE" : a.lens);
    TG_CHECK_ARG(int(a.lens_params.size()) == raster::lens_param_count(c.lens.model), "--lens-params: ",
                 raster::to_string(c.lens.model), " takes ", raster::lens_param_count(c.lens.model), " parameters (",
                 a.lens_params.size(), " given)");
    for (std::size_t i = 0; i < a.lens_params.size(); ++i) c.lens.params[i] = a.lens_params[i];
    c.format = training::capture_format_from_string(a.format.empty() ? "colmap" : a.format);
    training::write_lens_capture(a.out, scene, c);
  } else {
    training::write_synthetic_dataset(a.out, scene, a.views);
  }
  if (!a.ply.empty()) io::write_gaussians_ply(a.ply, scene);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("default scene: %zu Gaussians, %d train + %d test views of %dx%d%s written to %s (%.1f s on %s)\n",
              scene.count(), a.views.train_views, a.views.test_views, a.views.width, a.views.height,
              capture ? (std::string(" through ") + raster::to_string(a.capture.lens.model) + " (" +
                         training::to_string(a.capture.format) + ")")
                            .c_str()
                      : "",
              a.out.c_str(), seconds, to_string(a.views.device));
  if (!a.ply.empty()) std::printf("scene parameters written to %s\n", a.ply.c_str());
}

void add_make_scene_command(CLI::App& app) {
  auto a = std::make_shared<MakeSceneArgs>();
  auto* cmd = app.add_subcommand("make-scene",
                                 "Write the built-in procedural scene as a NeRF-synthetic dataset "
                                 "(RGBA renders + transforms_{train,test}.json)");
  cmd->add_option("--out", a->out, "Dataset folder to create")->required();
  cmd->add_option("--width", a->views.width, "Image width in pixels")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--height", a->views.height, "Image height in pixels")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--train-views", a->views.train_views, "Training views (upper hemisphere)")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--test-views", a->views.test_views, "Test views (a ring 30 degrees up)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--distance", a->views.camera_distance, "Camera distance from the origin")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--seed", a->views.seed, "Seed of the train camera placement")->capture_default_str();
  cmd->add_option("--scene-seed", a->scene_seed, "Seed of the scene's small random jitter")->capture_default_str();
  cmd->add_option("--ply", a->ply, "Also write the scene's Gaussians to this .ply");
  cmd->add_option("--garden", a->garden,
                  "The garden grid scene instead: its point cloud (garden_points/points.ply), seen from low aerial "
                  "views (docs/PERFORMANCE.md, multi-GPU training)");
  cmd->add_option("--grid", a->grid, "With --garden: the grid size G (odd; G x G copies of the garden)")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--altitude", a->height, "With --garden: camera height above the field")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--lens", a->lens,
                  "Photograph the scene through a lens instead (COLMAP model name: PINHOLE, SIMPLE_RADIAL, RADIAL, "
                  "OPENCV, FULL_OPENCV, OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE, FOV): opaque images, "
                  "train views then test views as one capture");
  cmd->add_option("--lens-params", a->lens_params, "The model's distortion parameters in COLMAP's order");
  cmd->add_option("--format", a->format, "Capture layout: colmap (default with --lens), transforms, nerf-synthetic")
      ->check(CLI::IsMember({"colmap", "transforms", "nerf-synthetic"}));
  cmd->add_option("--focal", a->capture.focal, "Capture focal length in pixels (0: from the NeRF-synthetic angle)")
      ->check(checks::non_negative());
  cmd->add_option("--supersample", a->capture.supersample, "Capture samples per pixel and axis")
      ->check(checks::range(1, 16))
      ->capture_default_str();
  cmd->add_option("--points", a->capture.points, "Capture SfM-like points (scene means with colours; 0: none)")
      ->capture_default_str();
  cmd->add_option("--device", a->device, "auto, cpu or cuda (renders the views)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->callback([a] { run_make_scene(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(make_scene, add_make_scene_command);

}  // namespace tilegrad::cli
