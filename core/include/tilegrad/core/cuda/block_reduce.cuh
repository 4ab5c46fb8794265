// Deterministic block-wide reductions for kernels that report partial results: a fixed shuffle tree inside
// each warp, then the warps' results in warp order, so a given launch shape always combines in the same order.
#pragma once
#include <cuda_runtime.h>

namespace tilegrad::cuda {

struct Plus {
  __device__ double operator()(double a, double b) const { return a + b; }
};

// Every thread of the block must call it; the result is returned in thread 0 (other threads get `identity`).
template <int BLOCK, class Combine>
__device__ double block_reduce(double v, Combine combine, double identity = 0.0) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "block size must be a multiple of 32, at most 1024");
  for (int offset = 16; offset > 0; offset >>= 1) v = combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  __shared__ double warp_results[BLOCK / 32];
  if ((threadIdx.x & 31) == 0) warp_results[threadIdx.x >> 5] = v;
  __syncthreads();
  double result = identity;
  if (threadIdx.x == 0)
    for (int w = 0; w < BLOCK / 32; ++w) result = combine(result, warp_results[w]);
  return result;
}

template <int BLOCK>
__device__ double block_sum(double v) {
  return block_reduce<BLOCK>(v, Plus{});
}

}  // namespace tilegrad::cuda
