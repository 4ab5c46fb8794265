// Writes checkpoints on a background thread from a host copy of the model, so that training waits only for the
// copy: the file (hundreds of MB for a trained scene) is hashed and written while the next iterations run.
#pragma once
#include <exception>
#include <string>
#include <thread>

#include "tilegrad/training/checkpoint.h"

namespace tilegrad::training {

class CheckpointWriter {
 public:
  CheckpointWriter() = default;
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;
  // Waits for a write in flight; an error of that write is lost here (destructors do not throw), so callers
  // that care call wait() first.
  ~CheckpointWriter();

  // Starts writing `host_model` (already on the host) to `path`, after waiting for the previous write
  // (whose error, if any, is thrown here).
  void start(const std::string& path, GaussianModel host_model, std::int64_t iteration, std::string config_json,
             std::string data_json, std::string state_json);
  // Waits for the write in flight and rethrows its error (disk full, folder removed, ...).
  void wait();
  bool busy() const { return m_thread.joinable(); }

 private:
  std::thread m_thread;
  std::exception_ptr m_error;
};

}  // namespace tilegrad::training
