// CUDA resampling (undistortion and resizing of training images): one thread per target pixel running the
// shared per-pixel function of element/resample.h.
#include "cuda_backend.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::training::cuda_backend {
namespace {

__global__ void resample_kernel(const __grid_constant__ ResampleArgs a) {
  const std::size_t i = cuda::global_thread();
  const std::size_t n = std::size_t(a.dst_width) * a.dst_height;
  if (i < n) resample_pixel(a, int(i % std::size_t(a.dst_width)), int(i / std::size_t(a.dst_width)));
}

}  // namespace

void resample(const ResampleArgs& a) {
  cuda::launch(resample_kernel, std::size_t(a.dst_width) * a.dst_height, 256, 0, a);
}

}  // namespace tilegrad::training::cuda_backend
