// The fused Adam kernel: one launch per step covers every element of every parameter group.
#include "cuda_backend.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::training::cuda_backend {
namespace {

__global__ void adam_kernel(const __grid_constant__ detail::AdamGroups groups, const AdamStepConstants k) {
  const std::size_t e = cuda::global_thread();
  if (e < groups.total) detail::adam_element(groups, k, e);
}

}  // namespace

void adam_step(const detail::AdamGroups& groups, const AdamStepConstants& k) {
  cuda::launch(adam_kernel, groups.total, 256, 0, groups, k);
}

}  // namespace tilegrad::training::cuda_backend
