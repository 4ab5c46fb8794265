// Training checkpoints: the model (parameters, Adam moments and step, densification statistics), the completed
// iteration, the configuration, a fingerprint of the dataset and the run's bookkeeping (cumulative times), in
// one binary file replaced atomically and closed by a checksum of everything before it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "tilegrad/training/model.h"

namespace tilegrad::training {

struct Checkpoint {
  GaussianModel model;  // on the host after loading
  std::int64_t iteration = 0;
  std::string config_json;  // config_to_json of the run
  std::string data_json;    // dataset_fingerprint of the run ("" : not recorded)
  std::string state_json;   // the trainer's cumulative bookkeeping ("" : none)
};

// Writes from any device; IoError naming the path when it cannot be written. The previous file stays intact
// until the new one is complete. The run state is asked for after the model is written (it may include the
// time spent writing it).
void save_checkpoint(const std::string& path, const GaussianModel& model, std::int64_t iteration,
                     const std::string& config_json, const std::string& data_json = "",
                     const std::function<std::string()>& state_json = {});
// IoError naming the file when it is missing, not a checkpoint, of an older format, truncated, inconsistent, or
// when its checksum does not match its contents (a flipped bit is detected, not loaded).
Checkpoint load_checkpoint(const std::string& path);

}  // namespace tilegrad::training
