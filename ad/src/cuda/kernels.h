// Internal launchers of the CUDA accumulation backend.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../backend.h"

namespace tilegrad::ad_backend::cuda_impl {

// grad[s] += exact sum of rows [offsets[s], offsets[s+1]) (rows through perm when given).
void segmented_sum(const float* values, const std::uint32_t* perm, const std::uint32_t* offsets,
                   std::size_t num_segments, std::size_t count, int width, float* grad, Workspace& ws,
                   cudaStream_t stream);

// Radix sort of (id, record index) on the id bits in use; fills offsets[num_params + 1] and perm[count].
void sort_records(const std::uint32_t* ids, std::size_t count, std::size_t num_params, std::uint32_t* perm,
                  std::uint32_t* offsets, Workspace& ws, cudaStream_t stream);

// Workspace slots: each algorithm owns a fixed range so nested use never overlaps.
enum Slot : std::size_t {
  kSlotErrorFlag = 0,
  kSlotSortKeys = 1,
  kSlotSortIota = 2,
  kSlotSortPerm = 3,
  kSlotSortTemp = 4,
  kSlotOffsets = 5,
  kSlotChunkBase = 6,
  kSlotChunkMax = 7,
  kSlotChunkFlags = 8,
  kSlotChunkScale = 9,
  kSlotChunkSum = 10,
  kSlotScanTemp = 11,
  kSlotChunkCounts = 12,
};

}  // namespace tilegrad::ad_backend::cuda_impl
