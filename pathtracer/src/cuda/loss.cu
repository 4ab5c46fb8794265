// CUDA L2 loss: the adjoint per element, the value from fixed-size block partials (double) summed on the
// host in block order, so it is the same for every run.
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::pathtracer {
namespace {

constexpr unsigned kBlock = 256, kBlocks = 264;

__global__ void __launch_bounds__(kBlock) l2_kernel(const float* image, const float* target, float* d_image,
                                                    std::size_t n, double scale, double* partial) {
  __shared__ double sums[kBlock];
  double local = 0.0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kBlock) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kBlock) {
    const double r = static_cast<double>(image[i]) - static_cast<double>(target[i]);
    local += r * r;
    d_image[i] = static_cast<float>(2.0 * r * scale);
  }
  sums[threadIdx.x] = local;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

}  // namespace

double l2_loss_cuda(const float* image, const float* target, float* d_image, std::size_t n) {
  Buffer<double> partial(kBlocks, Device::Cuda);
  const double scale = 1.0 / static_cast<double>(n);
  l2_kernel<<<kBlocks, kBlock>>>(image, target, d_image, n, scale, partial.data());
  TG_CUDA_CHECK_LAUNCH();
  double sum = 0.0;
  for (double p : partial.to_vector()) sum += p;
  return sum * scale;
}

}  // namespace tilegrad::pathtracer
