// The run-time device tag (Cpu or Cuda) and queries about the CUDA backend.
#pragma once
#include <string>
#include <string_view>

namespace tilegrad {

enum class Device { Cpu, Cuda };

const char* to_string(Device device);
// Parses "cpu" or "cuda" (case-insensitive); throws InvalidArgument otherwise.
Device parse_device(std::string_view name);

// True when this build contains the CUDA backend.
bool cuda_compiled();
// True when the CUDA backend is compiled in and at least one CUDA device is usable.
bool cuda_available();
// Name of the current CUDA device, or an explanation of why there is none.
std::string cuda_device_description();
// Streaming multiprocessors of the current CUDA device; 0 when there is none.
int cuda_multiprocessors();
// Cuda when available, else Cpu.
Device default_device();
// Throws Unsupported with a clear reason when `device` cannot be used on this machine.
void require_device(Device device);
// Waits for all queued work on `device` (no-op for Cpu).
void synchronize(Device device);

}  // namespace tilegrad
