// CUDA runtime wrappers behind memory.h and device.h (plain C++ against cudart; no kernels here).
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>

#include "../backend.h"
#include "tilegrad/core/cuda/check.h"

namespace tilegrad::cuda_backend {
namespace {

// Stream-ordered pool allocation keeps per-frame buffers cheap; the pool keeps freed memory
// (release threshold = max) so a training loop does not return memory to the driver each step. Each device has
// its own default pool (a process may allocate on several GPUs: distributed training, one thread per GPU).
constexpr int kMaxDevices = 64;

void configure_pool_once() {
  static std::once_flag once[kMaxDevices];
  int device = 0;
  TG_CUDA_CHECK(cudaGetDevice(&device));
  auto configure = [device] {
    cudaMemPool_t pool;
    TG_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t threshold = UINT64_MAX;
    TG_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  };
  if (device >= 0 && device < kMaxDevices) {
    std::call_once(once[device], configure);
  } else {
    configure();  // idempotent; only devices beyond the table pay for it on every allocation
  }
}

}  // namespace

void* allocate(std::size_t bytes) {
  configure_pool_once();
  void* ptr = nullptr;
  const cudaError_t err = cudaMallocAsync(&ptr, bytes, 0);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it so that later calls do not report it again
    return nullptr;
  }
  TG_CUDA_CHECK(err);
  return ptr;
}

void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) {
  TG_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void release(void* ptr) noexcept { TG_CUDA_CHECK_NOTHROW(cudaFreeAsync(ptr, 0)); }

void copy(void* dst, const void* src, std::size_t bytes, int kind) {
  cudaMemcpyKind k = kind == 0 ? cudaMemcpyHostToDevice : (kind == 1 ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  TG_CUDA_CHECK(cudaMemcpy(dst, src, bytes, k));
}

void fill_zero(void* ptr, std::size_t bytes) { TG_CUDA_CHECK(cudaMemsetAsync(ptr, 0, bytes, 0)); }

void synchronize() { TG_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace tilegrad::cuda_backend
