// CUDA loss: the four passes of loss_passes.h, one thread per (pixel, channel), and a deterministic two-level
// reduction of the values (fixed block tree, then the block partials in order by one block). Arguments are
// __grid_constant__: the shared passes take them by reference, which would otherwise copy them per thread.
#include "cuda_backend.h"
#include "tilegrad/core/cuda/block_reduce.cuh"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::training::cuda_backend {
namespace {

using detail::LossArgs;
constexpr int kBlock = 256;
enum WorkspaceSlot : std::size_t { kBlockSums = 0 };

__global__ void loss_rows_kernel(const __grid_constant__ LossArgs<float> a) {
  const std::size_t e = cuda::global_thread();
  if (e < a.elements()) detail::loss_rows_pass(a, e);
}

constexpr int kSums = 4;  // ElementSums

// Block b writes its sums of |x - y|, SSIM, (x - y)^2 and counted elements to block_sums[4 b .. 4 b + 3].
__global__ void __launch_bounds__(kBlock)
    loss_columns_kernel(const __grid_constant__ LossArgs<float> a, double* block_sums) {
  const std::size_t e = cuda::global_thread();
  detail::ElementSums<float> s{0.0f, 0.0f, 0.0f, 0.0f};
  if (e < a.elements()) s = detail::loss_columns_pass(a, e);
  const float parts[kSums] = {s.abs_diff, s.ssim, s.sq_diff, s.counted};
  for (int k = 0; k < kSums; ++k) {
    const double sum = cuda::block_sum<kBlock>(parts[k]);
    if (threadIdx.x == 0) block_sums[kSums * blockIdx.x + k] = sum;
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kBlock)
    loss_values_kernel(const double* block_sums, unsigned blocks, std::size_t n, float lambda, float* values) {
  double totals[kSums];
  for (int k = 0; k < kSums; ++k) {
    double s = 0.0;
    for (unsigned b = threadIdx.x; b < blocks; b += kBlock) s += block_sums[kSums * b + k];
    totals[k] = cuda::block_sum<kBlock>(s);
    __syncthreads();
  }
  if (threadIdx.x == 0) detail::finish_values(totals[0], totals[1], totals[2], totals[3], n, lambda, values);
}

__global__ void gradient_rows_kernel(const __grid_constant__ LossArgs<float> a) {
  const std::size_t e = cuda::global_thread();
  if (e < a.elements()) detail::gradient_rows_pass(a, e);
}

__global__ void gradient_columns_kernel(const __grid_constant__ LossArgs<float> a) {
  const std::size_t e = cuda::global_thread();
  if (e < a.elements()) detail::gradient_columns_pass(a, e);
}

}  // namespace

void image_loss(const LossArgs<float>& a, float* values, Workspace& ws) {
  const std::size_t n = a.elements();
  const unsigned blocks = cuda::blocks_for(n, kBlock);
  double* block_sums = ws.slot<double>(kBlockSums, std::size_t(blocks) * kSums + kSums);
  cuda::launch(loss_rows_kernel, n, kBlock, 0, a);
  if (n > 0) {
    loss_columns_kernel<<<blocks, kBlock>>>(a, block_sums);
    TG_CUDA_CHECK_LAUNCH();
  }
  loss_values_kernel<<<1, kBlock>>>(block_sums, blocks, a.counted, a.lambda, values);
  TG_CUDA_CHECK_LAUNCH();
  if (!a.grad) return;
  cuda::launch(gradient_rows_kernel, n, kBlock, 0, a);
  cuda::launch(gradient_columns_kernel, n, kBlock, 0, a);
}

}  // namespace tilegrad::training::cuda_backend
