// Host-side dispatch of memory.h and allocation statistics.
#include "tilegrad/core/memory.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "backend.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::memory {
namespace {

struct Counter {
  std::atomic<std::size_t> current{0};
  std::atomic<std::size_t> peak{0};
};
Counter g_counters[2];

Counter& counter(Device d) { return g_counters[d == Device::Cpu ? 0 : 1]; }

// Host allocations carry a header with their size so release() can update the statistics;
// CUDA allocations are looked up in a table (device memory cannot hold a host-readable header).
constexpr std::size_t kHeader = 64;  // keeps the user pointer 64-byte aligned
std::mutex g_cuda_sizes_mutex;
std::unordered_map<void*, std::size_t> g_cuda_sizes;

void track_alloc(Device d, std::size_t bytes) {
  Counter& c = counter(d);
  std::size_t now = c.current.fetch_add(bytes) + bytes;
  std::size_t peak = c.peak.load();
  while (now > peak && !c.peak.compare_exchange_weak(peak, now)) {
  }
}

thread_local const char* t_stage = nullptr;

std::string mib(std::size_t bytes) {
  char text[48];
  std::snprintf(text, sizeof text, "%.1f", double(bytes) / double(1 << 20));
  return text;
}

[[noreturn]] void out_of_memory(Device device, std::size_t bytes, const std::string& device_state) {
  const Counter& c = counter(device);
  throw OutOfMemory(detail::concat("out of ", device == Device::Cpu ? "host" : "GPU", " memory",
                                   t_stage ? std::string(" in ") + t_stage : std::string(), ": cannot allocate ",
                                   mib(bytes), " MiB (tilegrad's buffers hold ", mib(c.current.load()),
                                   " MiB, peak ", mib(c.peak.load()), " MiB", device_state, ")"),
                    t_stage ? t_stage : "", bytes);
}

void require_cuda_build() {
#if !TILEGRAD_WITH_CUDA
  throw Unsupported("CUDA memory requested but this tilegrad build has no CUDA backend");
#endif
}

}  // namespace

void* allocate(Device device, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (device == Device::Cpu) {
    void* base = std::aligned_alloc(kHeader, ((bytes + 2 * kHeader - 1) / kHeader) * kHeader);
    if (!base) out_of_memory(device, bytes, "");
    *static_cast<std::size_t*>(base) = bytes;
    track_alloc(device, bytes);
    return static_cast<char*>(base) + kHeader;
  }
  require_cuda_build();
  require_device(Device::Cuda);
  void* ptr = nullptr;
#if TILEGRAD_WITH_CUDA
  ptr = cuda_backend::allocate(bytes);
  if (!ptr) {
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda_backend::memory_info(free_bytes, total_bytes);
    out_of_memory(device, bytes, detail::concat("; the GPU has ", mib(free_bytes), " MiB free of ", mib(total_bytes)));
  }
  std::lock_guard<std::mutex> lock(g_cuda_sizes_mutex);
  g_cuda_sizes[ptr] = bytes;
#endif
  track_alloc(device, bytes);
  return ptr;
}

StageScope::StageScope(const char* what) : m_previous(t_stage) { t_stage = what; }
StageScope::~StageScope() { t_stage = m_previous; }
const char* current_stage() { return t_stage; }

void release(Device device, void* ptr) noexcept {
  if (!ptr) return;
  if (device == Device::Cpu) {
    void* base = static_cast<char*>(ptr) - kHeader;
    counter(device).current.fetch_sub(*static_cast<std::size_t*>(base));
    std::free(base);
    return;
  }
#if TILEGRAD_WITH_CUDA
  {
    std::lock_guard<std::mutex> lock(g_cuda_sizes_mutex);
    auto it = g_cuda_sizes.find(ptr);
    if (it != g_cuda_sizes.end()) {
      counter(device).current.fetch_sub(it->second);
      g_cuda_sizes.erase(it);
    }
  }
  cuda_backend::release(ptr);
#endif
}

void copy(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_device == Device::Cpu && src_device == Device::Cpu) {
    std::memcpy(dst, src, bytes);
    return;
  }
  require_cuda_build();
#if TILEGRAD_WITH_CUDA
  int kind = src_device == Device::Cpu ? 0 : (dst_device == Device::Cpu ? 1 : 2);
  cuda_backend::copy(dst, src, bytes, kind);
#endif
}

void fill_zero(void* ptr, Device device, std::size_t bytes) {
  if (bytes == 0) return;
  if (device == Device::Cpu) {
    std::memset(ptr, 0, bytes);
    return;
  }
  require_cuda_build();
#if TILEGRAD_WITH_CUDA
  cuda_backend::fill_zero(ptr, bytes);
#endif
}

Stats stats(Device device) { return {counter(device).current.load(), counter(device).peak.load()}; }

void reset_peak(Device device) { counter(device).peak.store(counter(device).current.load()); }

PeakScope::PeakScope(Device device)
    : m_device(device), m_start(counter(device).current.load()), m_previous_peak(counter(device).peak.load()) {
  counter(device).peak.store(m_start);
}

PeakScope::~PeakScope() {
  std::atomic<std::size_t>& peak = counter(m_device).peak;
  std::size_t now = peak.load();
  while (m_previous_peak > now && !peak.compare_exchange_weak(now, m_previous_peak)) {
  }
}

std::size_t PeakScope::added_peak() const {
  const std::size_t peak = counter(m_device).peak.load();
  return peak > m_start ? peak - m_start : 0;
}

}  // namespace tilegrad::memory
