// Internal: the CUDA event pair behind Timer (defined in cuda/event_timer.cpp in CUDA builds).
#pragma once
#include <memory>

namespace tilegrad::profiling::detail {

class EventPair {
 public:
  virtual ~EventPair() = default;
  virtual void record_start() = 0;
  virtual double record_stop_ms() = 0;
};
std::unique_ptr<EventPair> make_cuda_events();

}  // namespace tilegrad::profiling::detail
