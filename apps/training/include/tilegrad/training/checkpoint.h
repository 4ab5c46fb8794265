// Training checkpoints: the model (parameters, Adam moments and step, densification statistics), the completed
// iteration and the configuration, in one binary file replaced atomically (write to a temporary, then rename).
#pragma once
#include <cstdint>
#include <string>

#include "tilegrad/training/model.h"

namespace tilegrad::training {

struct Checkpoint {
  GaussianModel model;  // on the host after loading
  std::int64_t iteration = 0;
  std::string config_json;
};

// Writes from any device; IoError naming the path when it cannot be written.
void save_checkpoint(const std::string& path, const GaussianModel& model, std::int64_t iteration,
                     const std::string& config_json);
// IoError naming the file when it is missing, not a checkpoint, truncated or inconsistent.
Checkpoint load_checkpoint(const std::string& path);

}  // namespace tilegrad::training
