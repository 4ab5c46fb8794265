// Running a CUB device algorithm, which is called once for the size of its scratch and once to do the work
// (.cu files). `algorithm(void* temp, std::size_t& bytes)` makes the CUB call and returns its cudaError_t.
#pragma once
#include <cstddef>

#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::cuda {

// Scratch for this call only (freed on return: scratch that must not outlive a stage).
template <class F>
void run_cub(F&& algorithm) {
  std::size_t bytes = 0;
  TG_CUDA_CHECK(algorithm(nullptr, bytes));
  Buffer<std::byte> temp(bytes > 0 ? bytes : 1, Device::Cuda);
  TG_CUDA_CHECK(algorithm(static_cast<void*>(temp.data()), bytes));
}

// Scratch in a workspace slot held between calls (small, repeated algorithms: no allocation per call).
template <class F, class Slot>
void run_cub(F&& algorithm, Workspace& ws, Slot slot) {
  std::size_t bytes = 0;
  TG_CUDA_CHECK(algorithm(nullptr, bytes));
  TG_CUDA_CHECK(algorithm(static_cast<void*>(ws.slot<std::byte>(slot, bytes)), bytes));
}

}  // namespace tilegrad::cuda
