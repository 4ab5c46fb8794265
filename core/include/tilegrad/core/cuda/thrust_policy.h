// A thrust execution policy whose temporary memory comes from memory::allocate (.cu files): thrust's scratch then
// counts in memory::stats like any Buffer, and an allocation that fails throws OutOfMemory naming the current
// stage (memory::StageScope) instead of thrust's bad_alloc.
#pragma once
#include <thrust/execution_policy.h>

#include <cstddef>

#include "tilegrad/core/memory.h"

namespace tilegrad::cuda {

struct TrackedThrustAllocator {
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(memory::allocate(Device::Cuda, static_cast<std::size_t>(bytes)));
  }
  void deallocate(char* ptr, std::size_t) noexcept { memory::release(Device::Cuda, ptr); }
};

// thrust::cuda::par with tracked temporaries, on the default stream (the stream every tilegrad kernel uses).
inline auto tracked_thrust_policy(TrackedThrustAllocator& allocator) { return thrust::cuda::par(allocator); }

}  // namespace tilegrad::cuda
