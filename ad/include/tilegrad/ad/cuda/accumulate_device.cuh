// Device-side accumulation building blocks for client kernels (.cu only): the non-deterministic strategies
// that add straight into a gradient array. The deterministic ones write records and call
// Accumulator::segmented_sum (Owned) or Accumulator::accumulate(SortReduce) afterwards.
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>

namespace tilegrad::cuda {

// Atomic: one atomicAdd per component.
__device__ inline void atomic_add_row(float* grad, std::uint32_t id, const float* row, int width) {
  float* dst = grad + static_cast<std::size_t>(id) * width;
  for (int c = 0; c < width; ++c) atomicAdd(dst + c, row[c]);
}

// WarpAggregated: lanes holding the same id are summed inside the warp, then the group's first lane adds
// the total with one atomic per component. All 32 lanes of the warp must call it together; lanes with
// nothing to add pass valid = false.
__device__ inline void warp_aggregated_add_row(float* grad, std::uint32_t id, const float* row, int width,
                                               bool valid) {
  namespace cg = cooperative_groups;
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const std::uint32_t key = valid ? id : 0xFFFFFFFFu;
  const auto group = cg::labeled_partition(warp, key);
  float* dst = grad + static_cast<std::size_t>(id) * width;
  for (int c = 0; c < width; ++c) {
    const float total = cg::reduce(group, valid ? row[c] : 0.0f, cg::plus<float>());
    if (valid && group.thread_rank() == 0) atomicAdd(dst + c, total);
  }
}

}  // namespace tilegrad::cuda
