// The order in which a warp's deterministic reductions (cuda/warp_reduce_scatter.cuh) add the 32 lanes' values of
// a component, for host code: lanes paired across bit 4 of the lane index, then bit 3, 2, 1 and 0 (a butterfly).
// Host code that must give a warp's sum bit for bit (the CPU rasterizer's per-instance records) adds in this order.
#pragma once
#include "tilegrad/core/common.h"

namespace tilegrad {

template <class T>
TG_HD T warp_order_sum(const T (&lanes)[32]) {
  T x[32];
  TG_UNROLL for (int i = 0; i < 32; ++i) x[i] = lanes[i];
  TG_UNROLL for (int d = 16; d >= 1; d /= 2) {
    TG_UNROLL for (int i = 0; i < d; ++i) x[i] = x[i] + x[i + d];
  }
  return x[0];
}

}  // namespace tilegrad
