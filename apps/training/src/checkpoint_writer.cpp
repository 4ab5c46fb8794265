// Background checkpoint writes (see checkpoint_writer.h).
#include "checkpoint_writer.h"

#include <utility>

namespace tilegrad::training {

CheckpointWriter::~CheckpointWriter() {
  if (m_thread.joinable()) m_thread.join();
}

void CheckpointWriter::start(const std::string& path, const GaussianModel& model, std::int64_t iteration,
                             std::string config_json, std::string data_json, std::string state_json) {
  wait();
  model.copy_into(m_host, Device::Cpu);
  m_thread = std::thread([this, path, iteration, config = std::move(config_json), data = std::move(data_json),
                          state = std::move(state_json)] {
    try {
      save_checkpoint(path, m_host, iteration, config, data, [&] { return state; });
    } catch (...) {
      m_error = std::current_exception();
    }
  });
}

void CheckpointWriter::wait() {
  if (m_thread.joinable()) m_thread.join();
  if (m_error) std::rethrow_exception(std::exchange(m_error, nullptr));
}

}  // namespace tilegrad::training
