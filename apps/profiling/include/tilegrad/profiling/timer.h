// Timing on either device: CUDA events around GPU work, a steady clock for the CPU; statistics of samples.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "tilegrad/core/device.h"

namespace tilegrad::profiling {

class Timer {
 public:
  explicit Timer(Device device);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  void start();
  // Milliseconds since start(); waits for the device work queued in between.
  double stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

struct Samples {
  std::vector<double> ms;
  double median() const;
  double percentile(double q) const;  // q in [0, 1]
  double min() const;
};

// Runs `prepare` (untimed) and `body` (timed) `warmup + reps` times; keeps the last `reps` timings.
Samples time_repeated(Device device, int warmup, int reps, const std::function<void()>& prepare,
                      const std::function<void()>& body);

}  // namespace tilegrad::profiling
