// Raw, device-tagged memory: allocation (host heap or cudaMalloc, never managed memory), copies, statistics.
#pragma once
#include <cstddef>

#include "tilegrad/core/device.h"

namespace tilegrad::memory {

// Throws OutOfMemory naming the current stage (StageScope), the bytes requested, the bytes tilegrad's buffers
// hold on that device (and their peak) and, on a GPU, the device's free and total memory.
void* allocate(Device device, std::size_t bytes);
void release(Device device, void* ptr) noexcept;
// Copies `bytes` between any two devices; synchronous with respect to the host.
void copy(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes);
void fill_zero(void* ptr, Device device, std::size_t bytes);

// Names what the calling thread is doing ("rasterizer forward: binning") for out-of-memory messages, until the
// scope ends (scopes nest; the innermost names the stage). `what` must outlive the scope (a string literal).
class StageScope {
 public:
  explicit StageScope(const char* what);
  ~StageScope();
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;

 private:
  const char* m_previous;
};
const char* current_stage();  // nullptr outside every scope

// Bytes currently held and the peak since the last reset, for allocations made through this module.
struct Stats {
  std::size_t current = 0;
  std::size_t peak = 0;
};
Stats stats(Device device);
void reset_peak(Device device);

// The most bytes held on `device` during the scope's lifetime, for one stage of a computation. The device's peak
// (stats) restarts from the bytes held at construction and, at destruction, becomes the larger of its value
// before and the peak within, so scopes nest and the enclosing statistics are unchanged.
class PeakScope {
 public:
  explicit PeakScope(Device device);
  ~PeakScope();
  PeakScope(const PeakScope&) = delete;
  PeakScope& operator=(const PeakScope&) = delete;

  // Bytes held at the peak within the scope beyond those held when it began.
  std::size_t added_peak() const;

 private:
  Device m_device;
  std::size_t m_start, m_previous_peak;
};

}  // namespace tilegrad::memory
