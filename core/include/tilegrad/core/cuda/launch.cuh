// Kernel launch helpers for .cu files: grid sizing, early return on empty work, launch checks.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"

namespace tilegrad::cuda {

constexpr int kWarpSize = 32;

inline unsigned blocks_for(std::size_t n, unsigned block) {
  return static_cast<unsigned>((n + block - 1) / block);
}

// Streaming multiprocessors of the current device (cuda_multiprocessors, read once).
inline int sm_count() {
  static const int sms = [] {
    const int count = cuda_multiprocessors();
    TG_ASSERT(count > 0, "no CUDA device to count the multiprocessors of: ", cuda_device_description());
    return count;
  }();
  return sms;
}

// Number of blocks for a grid-stride kernel: enough to fill the GPU, never more than the work needs.
inline unsigned persistent_blocks(std::size_t work_items, unsigned block, unsigned blocks_per_sm = 8) {
  const std::size_t cap = static_cast<std::size_t>(sm_count()) * blocks_per_sm;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(cap, (work_items + block - 1) / block)));
}

// launch(kernel, n, block, stream, args...): one thread per item; returns at once when n == 0.
template <class Kernel, class... Args>
void launch(Kernel kernel, std::size_t n, unsigned block, cudaStream_t stream, Args... args) {
  if (n == 0) return;
  kernel<<<blocks_for(n, block), block, 0, stream>>>(args...);
  TG_CUDA_CHECK_LAUNCH();
}

__device__ inline std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned lane_id() { return threadIdx.x & (kWarpSize - 1); }

}  // namespace tilegrad::cuda
