// Device tag parsing and the CPU-side answers of the CUDA queries.
#include "tilegrad/core/device.h"

#include <algorithm>
#include <cctype>

#include "backend.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad {

const char* to_string(Device device) { return device == Device::Cpu ? "cpu" : "cuda"; }

Device parse_device(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "cpu") return Device::Cpu;
  if (lower == "cuda" || lower == "gpu") return Device::Cuda;
  throw InvalidArgument(detail::concat("unknown device '", name, "' (expected cpu or cuda)"));
}

bool cuda_compiled() { return TILEGRAD_WITH_CUDA != 0; }

bool cuda_available() {
#if TILEGRAD_WITH_CUDA
  return cuda_backend::device_count() > 0;
#else
  return false;
#endif
}

std::string cuda_device_description() {
#if TILEGRAD_WITH_CUDA
  return cuda_backend::describe_device();
#else
  return "this tilegrad build has no CUDA backend (configured with TILEGRAD_CUDA=OFF or no nvcc)";
#endif
}

int cuda_multiprocessors() {
#if TILEGRAD_WITH_CUDA
  return cuda_available() ? cuda_backend::multiprocessors() : 0;
#else
  return 0;
#endif
}

Device default_device() { return cuda_available() ? Device::Cuda : Device::Cpu; }

void require_device(Device device) {
  if (device == Device::Cpu) return;
  if (!cuda_available()) throw Unsupported("CUDA device requested but not usable: " + cuda_device_description());
}

void synchronize(Device device) {
#if TILEGRAD_WITH_CUDA
  if (device == Device::Cuda) cuda_backend::synchronize();
#else
  (void)device;
#endif
}

}  // namespace tilegrad
