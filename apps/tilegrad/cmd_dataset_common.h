// Options shared by the commands that read a training dataset (`train`, `eval`, `undistort`).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "cli_checks.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/run.h"

namespace tilegrad::cli {

// --data (required), --eval, --downscale and --device (auto, cpu or cuda; resolved by the command).
inline void add_dataset_options(CLI::App* cmd, training::DatasetOptions& data, std::string& device) {
  cmd->add_option("--data", data.path, "Dataset folder")->required();
  cmd->add_flag("--eval", data.eval,
                "Hold out every 8th image as test views when the dataset has no split (eval: as its training did)");
  cmd->add_option("--downscale", data.downscale, "Integer image downscale factor")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--device", device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
}

// The capture options: image folder, resolution, undistortion, masks, split, missing images (docs/TRAINING.md).
// `for_training`: also the options that only matter to training and evaluation (test split, near plane).
inline void add_capture_options(CLI::App* cmd, training::DatasetOptions& data, bool for_training = true) {
  cmd->add_option("--images", data.images,
                  "Image folder instead of the dataset's own, e.g. images_2, images_4, images_8 (downscaled copies: "
                  "cameras are scaled to them)");
  cmd->add_option("--width", data.width, "Training width in pixels, height by aspect ratio (instead of --downscale)")
      ->check(checks::non_negative());
  cmd->add_option("--max-width", data.max_width,
                  "Without --downscale or --width, images wider than this are scaled to it (0: keep every width)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option_function<std::string>(
         "--undistort",
         [&data](const std::string& mode) { data.undistort = training::undistort_mode_from_string(mode); },
         "Lens-distorted images become pinhole views: crop (no pixel without a source, COLMAP's default) or full "
         "(every source pixel kept, the rest masked out)")
      ->check(CLI::IsMember({"crop", "full"}))
      ->default_str(training::to_string(data.undistort));
  cmd->add_option_function<std::string>(
         "--interpolation",
         [&data](const std::string& name) { data.interpolation = training::interpolation_from_string(name); },
         "How resampled images (undistortion, --width, --max-width) read their source: bicubic (sharp) or bilinear "
         "(COLMAP's undistorter)")
      ->check(CLI::IsMember({"bicubic", "bilinear"}))
      ->default_str(training::to_string(data.interpolation));
  cmd->add_option("--masks", data.masks,
                  "Mask folder: <name>.png per image, dark pixels are ignored by the loss and the metrics "
                  "(transforms files may name masks per frame with mask_path)");
  if (for_training) {
    cmd->add_option("--test-every", data.test_every,
                    "Hold out every N-th image as a test view when the dataset has no split of its own (0: none; "
                    "default: 8 for COLMAP scenes, with --eval for the others)")
        ->check(checks::range(0, 1 << 30));
    cmd->add_option("--near-plane", data.near_plane,
                    "Cameras' near plane in world units: nothing closer is rendered (the original 3DGS culls at 0.2)")
        ->check(checks::positive())
        ->capture_default_str();
  }
  cmd->add_flag("--skip-missing-images", data.skip_missing_images,
                "Leave out frames whose image file is missing (with a warning) instead of stopping");
}

// Prints what loading changed (undistortion, resolution) and warns about frames left out.
inline void print_dataset_notes(const training::TrainingDataset& data) {
  for (const std::string& line : training::dataset_notes(data)) std::printf("%s\n", line.c_str());
}

}  // namespace tilegrad::cli
