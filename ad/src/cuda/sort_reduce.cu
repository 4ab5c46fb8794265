// CUDA record sort for SortReduce: radix sort of (id, record index) restricted to the id bits in use,
// then per-parameter segment offsets by binary search in the sorted ids.
#include <cub/device/device_radix_sort.cuh>

#include <climits>
#include <cstdint>

#include "kernels.h"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/core/cuda/radix_bits.h"

namespace tilegrad::ad::cuda_backend {
namespace {

using cuda::global_thread;
constexpr unsigned kBlock = 256;

__global__ void iota_kernel(std::uint32_t* out, std::size_t n) {
  const std::size_t i = global_thread();
  if (i < n) out[i] = static_cast<std::uint32_t>(i);
}

// offsets[p] = first position whose sorted id is >= p, for p in [0, num_params].
__global__ void offsets_kernel(const std::uint32_t* sorted_ids, std::size_t n, std::size_t num_params,
                               std::uint32_t* offsets) {
  const std::size_t p = global_thread();
  if (p > num_params) return;
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (sorted_ids[mid] < p) lo = mid + 1; else hi = mid;
  }
  offsets[p] = static_cast<std::uint32_t>(lo);
}

}  // namespace

void sort_records(const std::uint32_t* ids, std::size_t count, std::size_t num_params, const std::uint32_t* payload,
                  std::uint32_t* sorted_payload, std::uint32_t* offsets, Workspace& ws, cudaStream_t stream) {
  TG_ASSERT(count < static_cast<std::size_t>(INT_MAX), "too many records to sort: ", count);
  std::uint32_t* sorted_ids = ws.slot<std::uint32_t>(Slot::SortKeys, count);
  if (!payload) {
    std::uint32_t* iota = ws.slot<std::uint32_t>(Slot::SortIota, count);
    cuda::launch(iota_kernel, count, kBlock, stream, iota, count);
    payload = iota;
  }
  const int end_bit = cuda::radix_bits(num_params - 1);  // ids < num_params: higher bits are all zero
  const int n = static_cast<int>(count);
  std::size_t temp_bytes = 0;
  TG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, ids, sorted_ids, payload, sorted_payload, n, 0,
                                                end_bit, stream));
  void* temp = ws.slot<std::byte>(Slot::SortTemp, temp_bytes);
  TG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, ids, sorted_ids, payload, sorted_payload, n, 0,
                                                end_bit, stream));
  cuda::launch(offsets_kernel, num_params + 1, kBlock, stream, sorted_ids, count, num_params, offsets);
}

}  // namespace tilegrad::ad::cuda_backend
