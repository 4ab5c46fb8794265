// Deterministic warp-level sum of gradient rows over the lanes that hold the same key (device only).
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>

namespace tilegrad::pathtracer::cuda_impl {

// All 32 lanes call together. Afterwards the lowest lane of each group of equal keys holds the group's sum
// in `row` and gets true. The combination order depends only on which lanes share a key, never on timing:
// the same inputs give the same bits.
template <int W>
__device__ inline bool warp_sum_by_key(std::uint32_t key, float (&row)[W]) {
  namespace cg = cooperative_groups;
  constexpr unsigned kFull = 0xFFFFFFFFu;
  const unsigned peers = __match_any_sync(kFull, key);
  if (peers == kFull) {  // one key in the whole warp: a butterfly (the common case inside a sphere's image)
#pragma unroll
    for (int c = 0; c < W; ++c)
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1) row[c] += __shfl_xor_sync(kFull, row[c], offset);
    return (threadIdx.x & 31u) == 0;
  }
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const auto group = cg::labeled_partition(warp, key);
#pragma unroll
  for (int c = 0; c < W; ++c) row[c] = cg::reduce(group, row[c], cg::plus<float>());
  return group.thread_rank() == 0;
}

}  // namespace tilegrad::pathtracer::cuda_impl
