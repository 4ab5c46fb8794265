// The options of `tilegrad train`, defined once for the command and for the Python package's tilegrad.train
// (which parses its keyword arguments with them, so both accept the same options with the same checks).
#pragma once
#include <CLI/CLI.hpp>

#include "tilegrad/training/run.h"

namespace tilegrad::cli {

// Adds every option of `tilegrad train` to `cmd`, writing into `options`.
void add_train_options(CLI::App* cmd, training::RunOptions& options);

}  // namespace tilegrad::cli
