// CUDA device discovery for device.h.
#include <cuda_runtime.h>

#include <string>

#include "../backend.h"
#include "tilegrad/core/error.h"

namespace tilegrad::cuda_backend {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error so later calls are not poisoned
    return 0;
  }
  return count;
}

int multiprocessors() {
  int device = 0, count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::string describe_device() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return detail::concat("no usable CUDA device (", cudaGetErrorString(err), ")");
  }
  if (count == 0) return "no CUDA device present";
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  return detail::concat(prop.name, " (sm_", prop.major, prop.minor, ", ", prop.multiProcessorCount, " SMs, ",
                        prop.totalGlobalMem >> 20, " MiB)");
}

}  // namespace tilegrad::cuda_backend
