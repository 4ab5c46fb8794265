// Warp-wide sum of a W-float row, scattered over the lanes (.cu only): the cheap way to reduce a whole
// gradient record across a warp.
//
// Summing W components one by one over 32 lanes costs 5 W shuffles (45 for a 9-float record). Recursive
// halving costs ceil(W/2) + ceil(W/4) + ... instead (12 for W = 9, 13 for W = 12): at the level of lane
// distance d, the lower half of each lane pair keeps the first half of its components and the upper half the
// second (an odd count gets a zero padding slot at the end of the second half); each sends the half it gives up
// to its partner and adds what it receives to what it keeps. After the five levels every lane holds the full
// warp sum of one component or of a padding slot. The combination order is fixed by lane numbers alone, so the
// bits never depend on timing; lanes that compute the same component compute it with the same operands
// (a + b = b + a), so they agree.
#pragma once
#include <cuda_runtime.h>

namespace tilegrad::cuda {

struct LaneSum {
  float value;  // owner lanes: the warp sum of component `index`
  int index;    // W on lanes that own no component
  bool owner;   // exactly one lane owns each component
};

// Which component a lane ends with depends on its lane number alone: loops that reduce many rows compute it once
// (reduce_scatter_slot) and run only the values' part (warp_reduce_scatter_value) per row.
struct LaneSlot {
  int index;   // W on lanes that own no component
  bool owner;
};

namespace detail {

// `real`: how many of the lane's N current slots are components (the rest are padding); `index`: the component
// of its first slot.
template <int N, int DISTANCE>
__device__ inline LaneSlot reduce_scatter_slot_level(unsigned lane, int index, int real, bool owner) {
  if constexpr (DISTANCE == 0) {
    static_assert(N == 1, "more than 32 components");
    return {index, owner && real > 0};
  } else if constexpr (N == 1) {  // one slot left: a plain butterfly step, the lower partner owns the sum
    return reduce_scatter_slot_level<1, DISTANCE / 2>(lane, index, real, owner && !(lane & DISTANCE));
  } else {
    constexpr int H = (N + 1) / 2;
    const bool upper = (lane & DISTANCE) != 0;
    const int next_index = upper ? index + H : index;
    const int next_real = upper ? max(real - H, 0) : min(real, H);
    return reduce_scatter_slot_level<H, DISTANCE / 2>(lane, next_index, next_real, owner);
  }
}

// At each level the lower lane of a pair keeps the first half of its slots, the upper lane the second.
template <int N, int DISTANCE>
__device__ inline float reduce_scatter_level(const float (&v)[N], unsigned lane) {
  constexpr unsigned kFull = 0xFFFFFFFFu;
  if constexpr (DISTANCE == 0) {
    static_assert(N == 1, "more than 32 components");
    return v[0];
  } else if constexpr (N == 1) {  // one slot left: a plain butterfly step, both partners get the sum
    const float w[1] = {v[0] + __shfl_xor_sync(kFull, v[0], DISTANCE)};
    return reduce_scatter_level<1, DISTANCE / 2>(w, lane);
  } else {
    constexpr int H = (N + 1) / 2;
    const bool upper = (lane & DISTANCE) != 0;
    float w[H];
#pragma unroll
    for (int k = 0; k < H; ++k) {
      const float high = H + k < N ? v[H + k] : 0.0f;
      const float send = upper ? v[k] : high;
      const float keep = upper ? high : v[k];
      w[k] = keep + __shfl_xor_sync(kFull, send, DISTANCE);
    }
    return reduce_scatter_level<H, DISTANCE / 2>(w, lane);
  }
}

}  // namespace detail

// The component whose warp sum lane `lane` ends with, and whether it owns it.
template <int W>
__device__ inline LaneSlot reduce_scatter_slot(unsigned lane) {
  static_assert(W >= 1 && W <= 32, "1..32 components");
  const LaneSlot s = detail::reduce_scatter_slot_level<W, 16>(lane, 0, W, true);
  return s.owner ? s : LaneSlot{W, false};
}

// All 32 lanes call it together; on owner lanes the result is the warp sum of component reduce_scatter_slot<W>.
template <int W>
__device__ inline float warp_reduce_scatter_value(const float (&row)[W]) {
  static_assert(W >= 1 && W <= 32, "1..32 components");
  return detail::reduce_scatter_level<W, 16>(row, threadIdx.x & 31u);
}

// All 32 lanes call it together.
template <int W>
__device__ inline LaneSum warp_reduce_scatter(const float (&row)[W]) {
  const LaneSlot slot = reduce_scatter_slot<W>(threadIdx.x & 31u);
  return {warp_reduce_scatter_value(row), slot.index, slot.owner};
}

}  // namespace tilegrad::cuda
