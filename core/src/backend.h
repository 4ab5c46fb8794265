// Internal entry points of the CUDA runtime wrappers (defined only in CUDA builds).
#pragma once
#include <cstddef>
#include <string>

namespace tilegrad::cuda_backend {

int device_count();
std::string describe_device();
int multiprocessors();  // of the current device
void synchronize();
void* allocate(std::size_t bytes);  // nullptr when the device is out of memory (the error is cleared)
void memory_info(std::size_t& free_bytes, std::size_t& total_bytes);
void release(void* ptr) noexcept;
// kind: 0 host->device, 1 device->host, 2 device->device
void copy(void* dst, const void* src, std::size_t bytes, int kind);
void fill_zero(void* ptr, std::size_t bytes);

}  // namespace tilegrad::cuda_backend
