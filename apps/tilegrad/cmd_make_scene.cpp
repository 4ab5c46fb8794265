// `tilegrad make-scene`: writes the embedded default scene as a NeRF-synthetic dataset folder (multi-view RGBA
// renders made with the rasterizer, transforms_{train,test}.json), and optionally the scene itself as a .ply.
// With --lens or --format it writes a synthetic capture through a lens instead (lens_capture.h).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_checks.h"
#include "commands.h"
#include "tilegrad/io/ply_gaussians.h"
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

void run_make_scene(MakeSceneArgs& a) {
  a.views.device = training::device_from_option(a.device);
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
