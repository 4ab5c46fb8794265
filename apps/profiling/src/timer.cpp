// Timer and sample statistics.
#include "tilegrad/profiling/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#include "timer_impl.h"

namespace tilegrad::profiling {

struct Timer::Impl {
  Device device;
  std::chrono::steady_clock::time_point begin;
  std::unique_ptr<detail::EventPair> events;
};

Timer::Timer(Device device) : m_impl(std::make_unique<Impl>()) {
  m_impl->device = device;
  if (device == Device::Cuda) {
    require_device(device);
#if TILEGRAD_WITH_CUDA
    m_impl->events = detail::make_cuda_events();
#endif
  }
}
Timer::~Timer() = default;

void Timer::start() {
  if (m_impl->events) {
    m_impl->events->record_start();
  } else {
    m_impl->begin = std::chrono::steady_clock::now();
  }
}

double Timer::stop() {
  if (m_impl->events) return m_impl->events->record_stop_ms();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_impl->begin).count();
}

double Samples::percentile(double q) const {
  TG_CHECK_ARG(!ms.empty(), "no timing samples");
  std::vector<double> s = ms;
  std::sort(s.begin(), s.end());
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}
double Samples::median() const { return percentile(0.5); }
double Samples::min() const { return percentile(0.0); }

Samples time_repeated(Device device, int warmup, int reps, const std::function<void()>& prepare,
                      const std::function<void()>& body) {
  TG_CHECK_ARG(reps >= 1 && warmup >= 0, "need reps >= 1 and warmup >= 0");
  Timer timer(device);
  Samples samples;
  for (int i = 0; i < warmup + reps; ++i) {
    if (prepare) prepare();
    timer.start();
    body();
    const double ms = timer.stop();
    if (i >= warmup) samples.ms.push_back(ms);
  }
  return samples;
}

}  // namespace tilegrad::profiling
