// Data type sizes, and the NCCL entry points of builds without NCCL.
#include "tilegrad/core/config.h"
#include "tilegrad/distributed/communicator.h"

#if TILEGRAD_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace tilegrad::distributed {

std::size_t type_size(DataType type) {
  switch (type) {
    case DataType::U8:
      return 1;
    case DataType::I32:
    case DataType::F32:
      return 4;
    case DataType::I64:
    case DataType::F64:
      return 8;
  }
  return 0;
}

int visible_gpus() {
#if TILEGRAD_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

std::size_t gpu_pool_peak_bytes(int gpu) {
#if TILEGRAD_WITH_CUDA
  cudaMemPool_t pool;
  std::uint64_t peak = 0;
  if (gpu < 0 || cudaDeviceGetDefaultMemPool(&pool, gpu) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &peak) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return std::size_t(peak);
#else
  (void)gpu;
  return 0;
#endif
}

#if !TILEGRAD_WITH_NCCL
bool nccl_compiled() { return false; }

CommGroup make_nccl_group(const std::vector<int>&) {
  throw Unsupported(
      "training on several GPUs needs NCCL: this tilegrad build has none (a CUDA build finds nccl.h and libnccl in "
      "the CUDA toolkit)");
}
#endif

}  // namespace tilegrad::distributed
