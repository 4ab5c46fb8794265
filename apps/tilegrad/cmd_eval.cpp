// `tilegrad eval`: recomputes PSNR and SSIM of a trained .ply on a dataset's test views (or train views), with
// the same split, background and metrics as `tilegrad train`.
#include <cstdio>
#include <string>

#include "cmd_dataset_common.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/metrics.h"
#include "tilegrad/training/outputs.h"

namespace tilegrad::cli {
namespace {

struct EvalArgs {
  std::string ply, out, split = "test", device = "auto", background = "auto";
  training::DatasetOptions data;
  int sh_degree = -1;
  bool antialiased = false, save_renders = false;
};

void run_eval(EvalArgs& a) {
  training::TrainConfig bg;  // background parsing and the Auto rule shared with training
  training::set_background(bg, a.background);
  TG_CHECK_ARG(bg.background_mode != training::BackgroundMode::Random, "--background random is for training only");
  a.data.device = training::device_from_option(a.device);
  a.data.load_train_images = a.split == "train";
  a.data.load_test_images = a.split == "test";
  const training::TrainingDataset data = training::load_dataset(a.data);
  print_dataset_notes(data);
  const auto& views = a.split == "test" ? data.test : data.train;
  if (views.empty())
    throw InvalidArgument(data.root + ": no " + a.split + " views (a dataset without a split needs --eval)");
  const raster::Gaussians scene = io::read_gaussians_ply(a.ply).to(a.data.device);
  raster::RasterSettings settings;
  training::evaluation_background(bg, data.has_alpha, settings.background);
  settings.sh_degree = a.sh_degree;
  settings.antialiased = a.antialiased;
  raster::Rasterizer rasterizer(a.data.device);
  training::ImageLoss loss(a.data.device);
  const training::RenderSink sink =
      a.save_renders && !a.out.empty() ? training::png_sink(a.out + "/renders/" + a.split) : training::RenderSink{};
  training::Evaluation e = training::evaluate_views(rasterizer, loss, scene.view(), views, settings, sink);
  e.split = a.split;
  std::printf("%s: %zu Gaussians, %s views of %s (%zu): PSNR %.2f dB, SSIM %.4f, L1 %.4f (%.2f s)\n", a.ply.c_str(),
              scene.count(), a.split.c_str(), data.root.c_str(), e.views.size(), e.psnr, e.ssim, e.l1, e.seconds);
  if (!a.out.empty()) {
    training::write_metrics_json(a.out + "/metrics.json", e, nullptr);
    std::printf("wrote %s/metrics.json\n", a.out.c_str());
  }
}

void add_eval_command(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand("eval", "PSNR and SSIM of a trained .ply on a dataset's test (or train) views");
  cmd->add_option("--ply", a->ply, "Trained scene (.ply, 3DGS layout)")->required();
  add_dataset_options(cmd, a->data, a->device);
  add_capture_options(cmd, a->data);
  cmd->add_option("--split", a->split, "test or train")->check(CLI::IsMember({"test", "train"}))->capture_default_str();
  cmd->add_option("--background", a->background,
                  "auto (white for images with alpha, else black), white, black or "
                  "r,g,b")
      ->capture_default_str();
  cmd->add_option("--sh-degree", a->sh_degree, "SH degree to render with (-1: all stored)")
      ->check(checks::range(-1, 3))
      ->capture_default_str();
  cmd->add_flag("--antialiased", a->antialiased, "Antialiased rasterization (if the scene was trained with it)");
  cmd->add_option("--out", a->out, "Folder for metrics.json (and renders with --save-renders)");
  cmd->add_flag("--save-renders", a->save_renders, "Write the renders to OUT/renders/<split>/");
  cmd->callback([a] { run_eval(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(eval, add_eval_command);

}  // namespace tilegrad::cli
