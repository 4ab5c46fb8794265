// `tilegrad undistort`: a capture with any supported lens (COLMAP model or transforms.json) written as a COLMAP
// scene with PINHOLE cameras (images + sparse model), exactly the pinhole views `tilegrad train` would see.
#include <cstdio>
#include <string>

#include "cmd_dataset_common.h"
#include "cli_checks.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/export_colmap.h"

namespace tilegrad::cli {
namespace {

struct UndistortArgs {
  training::DatasetOptions data;
  std::string out, device = "auto";
  bool text = false;
};

void run_undistort(UndistortArgs& a) {
  a.data.device = training::device_from_option(a.device);
  a.data.test_every = 0;  // every frame, in the dataset's order (a split stays the reader's choice)
  a.data.eval = false;
  a.data.load_train_images = a.data.load_test_images = false;  // streamed, view by view
  const training::TrainingDataset data = training::load_dataset(a.data);
  print_dataset_notes(data);
  training::ExportOptions o;
  o.text = a.text;
  o.device = a.data.device;
  std::printf("undistorting %zu images of %s on %s\n", data.train.size() + data.test.size(), data.root.c_str(),
              to_string(o.device));
  const training::ExportSummary s = training::write_colmap_dataset(data, a.out, o);
  std::printf(
      "wrote %zu images (%zu with masks), %zu PINHOLE camera(s), %zu points to %s/{images,sparse/0%s}: load and "
      "undistort %.2f s, write %.2f s\n",
      s.images, s.masks, s.cameras, s.points, a.out.c_str(), s.masks > 0 ? ",masks" : "", s.load_seconds,
      s.write_seconds);
}

void add_undistort_command(CLI::App& app) {
  auto a = std::make_shared<UndistortArgs>();
  a->data.max_width = 0;  // keep the resolution unless asked
  auto* cmd = app.add_subcommand("undistort",
                                 "Write a capture (COLMAP or transforms.json, any supported lens) as a COLMAP scene "
                                 "with PINHOLE cameras, for tools that need undistorted images (3DGS, gsplat)");
  cmd->add_option("--data", a->data.path, "Dataset folder")->required();
  cmd->add_option("--downscale", a->data.downscale, "Integer image downscale factor")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--device", a->device, "Where images are resampled: auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  add_capture_options(cmd, a->data, false);
  cmd->add_option("--out", a->out, "Output folder (images/, sparse/0/, masks/ with --undistort full)")->required();
  cmd->add_flag("--text", a->text, "Write the sparse model as .txt instead of .bin");
  cmd->callback([a] { run_undistort(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(undistort, add_undistort_command);

}  // namespace tilegrad::cli
