// Options shared by the commands that read a training dataset (`train`, `eval`).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "cli_checks.h"
#include "tilegrad/training/dataset.h"

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

}  // namespace tilegrad::cli
