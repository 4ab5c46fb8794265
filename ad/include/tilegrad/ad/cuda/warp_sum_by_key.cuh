// Deterministic warp-level sum of gradient rows over the lanes that hold the same key (.cu only): how a warp's
// contributions to shared parameters are combined before they leave it.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "tilegrad/ad/cuda/warp_reduce_scatter.cuh"

namespace tilegrad::cuda {

// All 32 lanes call together. The warp's sum of the rows of each key leaves through emit(c, value): called
// once for every component c of every key present, on one lane that holds that key. The combination order
// depends only on which lanes hold which key, never on timing: the same inputs give the same bits.
//
// One key in the whole warp (inside a sphere's image, or along one curve): a transposed reduction leaves
// each component's sum on its own lane (warp_reduce_scatter: 12 shuffles for 10 floats instead of 50).
// Otherwise equal keys mostly sit in runs of consecutive lanes (neighbouring pixels, contiguous samples):
// each run is summed by a segmented scan (five shuffle levels whatever the number of keys; its last lane ends
// with the run's sum), and a key split over several runs has the sums of its later runs added, in lane order,
// to its first run's. (A general grouped reduction would pay its lane bookkeeping for every component.)
template <int W, class Emit>
__device__ inline void warp_sum_by_key(std::uint32_t key, float (&row)[W], Emit&& emit) {
  constexpr unsigned kFull = 0xFFFFFFFFu;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const unsigned peers = __match_any_sync(kFull, key);
  if (peers == kFull) {
    const LaneSum s = warp_reduce_scatter(row);
    if (s.owner) emit(s.index, s.value);
    return;
  }
  const std::uint32_t before = __shfl_up_sync(kFull, key, 1);
  const unsigned heads = __ballot_sync(kFull, lane == 0 || before != key);
  const unsigned upto = (2u << lane) - 1u;     // lanes 0..lane (2u << 31 wraps to 0: all lanes)
  const int start = 31 - __clz(heads & upto);  // first lane of this lane's run
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const bool take = lane - d >= start;
#pragma unroll
    for (int c = 0; c < W; ++c) {
      const float v = __shfl_up_sync(kFull, row[c], d);
      if (take) row[c] += v;
    }
  }
  const unsigned tails = (heads >> 1) | 0x80000000u;  // last lane of each run
  const unsigned same = peers & tails;                // the tails of this key's runs
  const bool leader = ((tails >> lane) & 1u) && lane == __ffs(same) - 1;
  unsigned rest = leader ? same & (same - 1u) : 0u;   // the leader's later runs, ascending
  while (__any_sync(kFull, rest != 0u)) {
    const int src = rest != 0u ? __ffs(rest) - 1 : lane;
#pragma unroll
    for (int c = 0; c < W; ++c) {
      const float v = __shfl_sync(kFull, row[c], src);
      if (rest != 0u) row[c] += v;
    }
    rest &= rest - 1u;
  }
  if (leader) {
#pragma unroll
    for (int c = 0; c < W; ++c) emit(c, row[c]);
  }
}

}  // namespace tilegrad::cuda
