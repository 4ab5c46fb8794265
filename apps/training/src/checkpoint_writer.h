// Writes checkpoints on a background thread from a host copy of the model, so that training waits only for the
// copy: the file (hundreds of MB for a trained scene) is hashed and written while the next iterations run. The
// host copy is kept between checkpoints: once the number of Gaussians stops changing, a copy allocates nothing
// (first-touch page faults of a fresh allocation cost about as much as the transfer itself).
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

  // Waits for the previous write (whose error, if any, is thrown here), copies `model` to the host and starts
  // writing the copy to `path`; returns once the copy is made.
  void start(const std::string& path, const GaussianModel& model, std::int64_t iteration, std::string config_json,
             std::string data_json, std::string state_json);
  // Waits for the write in flight and rethrows its error (disk full, folder removed, ...).
  void wait();
  bool busy() const { return m_thread.joinable(); }

 private:
  std::thread m_thread;
  GaussianModel m_host;  // the copy being written; reused by the next checkpoint
  std::exception_ptr m_error;
};

}  // namespace tilegrad::training
