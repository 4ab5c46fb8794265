// `tilegrad make-scene`: writes the embedded default scene as a NeRF-synthetic dataset folder (multi-view RGBA
// renders made with the rasterizer, transforms_{train,test}.json), and optionally the scene itself as a .ply.
#include <chrono>
#include <cstdio>
#include <string>

#include "commands.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/default_scene.h"

namespace tilegrad::cli {
namespace {

struct MakeSceneArgs {
  std::string out, ply, device = "auto";
  training::SceneViewOptions views;
  std::uint64_t scene_seed = 0;
};

void run_make_scene(MakeSceneArgs& a) {
  a.views.device = training::device_from_option(a.device);
  const auto t0 = std::chrono::steady_clock::now();
  const raster::Gaussians scene = training::make_default_scene(a.scene_seed);
  training::write_synthetic_dataset(a.out, scene, a.views);
  if (!a.ply.empty()) io::write_gaussians_ply(a.ply, scene);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("default scene: %zu Gaussians, %d train + %d test views of %dx%d written to %s (%.1f s on %s)\n",
              scene.count(), a.views.train_views, a.views.test_views, a.views.width, a.views.height, a.out.c_str(),
              seconds, to_string(a.views.device));
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
  cmd->add_option("--device", a->device, "auto, cpu or cuda (renders the views)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->callback([a] { run_make_scene(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(make_scene, add_make_scene_command);

}  // namespace tilegrad::cli
