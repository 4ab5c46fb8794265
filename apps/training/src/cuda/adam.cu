// The fused Adam kernel: one launch per step covers every element of every parameter group. Each thread takes a
// run of 4 consecutive elements of one group with 16-byte loads and stores (where every group's arrays are 16-byte
// aligned; one element per thread otherwise): a quarter of the threads, and four independent updates in flight
// per thread. Both paths apply the same update to every element (adam_update, whose multiply-adds are written
// out), so they give the same bits as each other and as the CPU loop.
#include <cstdint>

#include "cuda_backend.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::training::cuda_backend {
namespace {

__global__ void adam_kernel(const __grid_constant__ detail::AdamGroups groups, const AdamStepConstants k) {
  const std::size_t e = cuda::global_thread();
  if (e < groups.total) detail::adam_element(groups, k, e);
}

__device__ inline float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ inline void store4(float* p, const float4& x) { *reinterpret_cast<float4*>(p) = x; }

__global__ void adam_quad_kernel(const __grid_constant__ detail::AdamGroups groups, const AdamStepConstants k) {
  const std::size_t q = cuda::global_thread();
  if (q >= groups.quads) return;
  const int g = detail::adam_group_of(groups, q, [](const detail::AdamGroupArgs& x) { return x.quad_begin; });
  const detail::AdamGroupArgs& a = groups.group[g];
  const std::size_t i = (q - a.quad_begin) * 4, size = detail::adam_group_size(groups, g);
  if (i + 4 <= size) {
    float4 p = load4(a.param + i), m = load4(a.m + i), v = load4(a.v + i);
    const float4 grad = load4(a.grad + i);
    adam_update(p.x, grad.x, m.x, v.x, detail::adam_lr(a, i), k);
    adam_update(p.y, grad.y, m.y, v.y, detail::adam_lr(a, i + 1), k);
    adam_update(p.z, grad.z, m.z, v.z, detail::adam_lr(a, i + 2), k);
    adam_update(p.w, grad.w, m.w, v.w, detail::adam_lr(a, i + 3), k);
    store4(a.param + i, p);
    store4(a.m + i, m);
    store4(a.v + i, v);
  } else {
    for (std::size_t j = i; j < size; ++j) adam_update(a.param[j], a.grad[j], a.m[j], a.v[j], detail::adam_lr(a, j), k);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void adam_step(const detail::AdamGroups& groups, const AdamStepConstants& k) {
  bool vectors = true;
  for (int g = 0; g < groups.count; ++g) {
    const detail::AdamGroupArgs& a = groups.group[g];
    vectors = vectors && aligned16(a.param) && aligned16(a.m) && aligned16(a.v) && aligned16(a.grad);
  }
  if (vectors) {
    cuda::launch(adam_quad_kernel, groups.quads, 256, 0, groups, k);
  } else {
    cuda::launch(adam_kernel, groups.total, 256, 0, groups, k);
  }
}

}  // namespace tilegrad::training::cuda_backend
