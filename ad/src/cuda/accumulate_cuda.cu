// CUDA accumulation: validation, the Atomic and WarpAggregated kernels, and dispatch of the deterministic
// strategies (sort_reduce.cu, segmented_sum.cu).
#include <cstdint>

#include "kernels.h"
#include "tilegrad/ad/cuda/accumulate_device.cuh"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::ad::cuda_backend {
namespace {

using cuda::global_thread;
constexpr unsigned kBlock = 256;

__global__ void check_ids_kernel(const std::uint32_t* ids, std::size_t n, std::size_t num_params,
                                 unsigned* errors) {
  const std::size_t i = global_thread();
  if (i < n && ids[i] >= num_params) atomicOr(errors, kIdOutOfRange);
}

__global__ void check_offsets_kernel(const std::uint32_t* offsets, std::size_t num_params, std::size_t count,
                                     unsigned* errors) {
  const std::size_t s = global_thread();
  if (s >= num_params) return;
  if ((s == 0 && offsets[0] != 0) || (s + 1 == num_params && offsets[num_params] != count) ||
      offsets[s + 1] < offsets[s])
    atomicOr(errors, kBadOffsets);
}

// Run after check_offsets succeeded: every id stored in segment s must be s.
__global__ void check_ids_in_segments_kernel(const std::uint32_t* ids, const std::uint32_t* offsets,
                                             std::size_t num_params, std::size_t count, unsigned* errors) {
  const std::size_t i = global_thread();
  if (i >= count) return;
  std::size_t lo = 0, hi = num_params;  // last s with offsets[s] <= i
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (offsets[mid] <= i) lo = mid; else hi = mid;
  }
  if (ids[i] != lo) atomicOr(errors, kIdOutsideSegment);
}

__global__ void atomic_kernel(const std::uint32_t* ids, const float* values, std::size_t n, int width,
                              float* grad) {
  const std::size_t i = global_thread();
  if (i < n) cuda::atomic_add_row(grad, ids[i], values + i * width, width);
}

__global__ void warp_aggregated_kernel(const std::uint32_t* ids, const float* values, std::size_t n, int width,
                                       float* grad) {
  const std::size_t i = global_thread();
  const bool valid = i < n;
  cuda::warp_aggregated_add_row(grad, valid ? ids[i] : 0u, values + (valid ? i : 0) * width, width, valid);
}

unsigned read_errors(const unsigned* d_errors) {
  unsigned errors = 0;
  TG_CUDA_CHECK(cudaMemcpy(&errors, d_errors, sizeof(unsigned), cudaMemcpyDeviceToHost));
  return errors;
}

unsigned validate(Accumulation strategy, const Problem& p, Workspace& ws) {
  unsigned* d_errors = ws.slot<unsigned>(Slot::ErrorFlag, 1);
  TG_CUDA_CHECK(cudaMemsetAsync(d_errors, 0, sizeof(unsigned)));
  if (strategy != Accumulation::Owned) {
    cuda::launch(check_ids_kernel, p.count, kBlock, 0, p.ids, p.count, p.num_params, d_errors);
    return read_errors(d_errors);
  }
  cuda::launch(check_offsets_kernel, p.num_params, kBlock, 0, p.offsets, p.num_params, p.count, d_errors);
  unsigned errors = read_errors(d_errors);
  if (errors || !p.ids) return errors;
  cuda::launch(check_ids_in_segments_kernel, p.count, kBlock, 0, p.ids, p.offsets, p.num_params, p.count, d_errors);
  return read_errors(d_errors);
}

}  // namespace

unsigned accumulate(Accumulation strategy, const Problem& p, Workspace& ws) {
  if (p.check) {
    const unsigned errors = validate(strategy, p, ws);
    if (errors) return errors;
  }
  switch (strategy) {
    case Accumulation::Atomic:
      cuda::launch(atomic_kernel, p.count, kBlock, 0, p.ids, p.values, p.count, p.width, p.grad);
      break;
    case Accumulation::WarpAggregated:
      cuda::launch(warp_aggregated_kernel, p.count, kBlock, 0, p.ids, p.values, p.count, p.width, p.grad);
      break;
    case Accumulation::SortReduce: {
      if (p.count == 0) {  // nothing to sort (reached only when overwriting): segmented_sum writes the +0 sums
        segmented_sum(p.values, nullptr, nullptr, p.num_params, 0, p.width, p.grad, ws, 0, 0, p.overwrite);
        break;
      }
      std::uint32_t* offsets = ws.slot<std::uint32_t>(Slot::Offsets, p.num_params + 1);
      std::uint32_t* sorted = ws.slot<std::uint32_t>(Slot::SortPerm, p.count);
      if (p.width == 1) {  // the values themselves travel with the keys: no gather afterwards
        sort_records(p.ids, p.count, p.num_params, reinterpret_cast<const std::uint32_t*>(p.values), sorted,
                                offsets, ws, 0);
        segmented_sum(reinterpret_cast<const float*>(sorted), nullptr, offsets, p.num_params, p.count, 1,
                                 p.grad, ws, 0, 0, p.overwrite);
      } else {  // sort record indices, gather rows through the permutation
        sort_records(p.ids, p.count, p.num_params, nullptr, sorted, offsets, ws, 0);
        segmented_sum(p.values, sorted, offsets, p.num_params, p.count, p.width, p.grad, ws, 0, 0, p.overwrite);
      }
      break;
    }
    case Accumulation::Owned:
      segmented_sum(p.values, nullptr, p.offsets, p.num_params, p.count, p.width, p.grad, ws, 0,
                               p.max_segment_rows, p.overwrite);
      break;
  }
  return 0;
}

}  // namespace tilegrad::ad::cuda_backend
