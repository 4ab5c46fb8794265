// Internal launchers of the CUDA accumulation backend.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../backend.h"

namespace tilegrad::ad::cuda_backend {

// grad[s] += exact sum of rows [offsets[s], offsets[s+1]) (rows through perm when given). max_rows: 0, or
// a bound on every segment's length (short bounds take a one-launch path; same bits). overwrite: grad[s] =
// sum + 0 for every segment, empty ones included (+0), grad never read (AccumulateOptions::overwrite).
void segmented_sum(const float* values, const std::uint32_t* perm, const std::uint32_t* offsets,
                   std::size_t num_segments, std::size_t count, int width, float* grad, Workspace& ws,
                   cudaStream_t stream, std::uint32_t max_rows = 0, bool overwrite = false);

// Radix sort of (id, 32-bit payload) on the id bits in use; fills offsets[num_params + 1] and the payload in
// id order. A null payload sorts record indices (the permutation); width-1 values are sorted directly.
void sort_records(const std::uint32_t* ids, std::size_t count, std::size_t num_params, const std::uint32_t* payload,
                  std::uint32_t* sorted_payload, std::uint32_t* offsets, Workspace& ws, cudaStream_t stream);

// The slots of the accumulator's workspace, every algorithm's in one place (nested use never overlaps).
enum class Slot : std::size_t {
  ErrorFlag,
  SortKeys,
  SortIota,
  SortPerm,
  SortTemp,
  Offsets,
  ChunkBase,
  ChunkMax,
  ChunkFlags,
  ChunkScale,
  ChunkSum,
  ScanTemp,
  ChunkCounts,
  SingleTasks,
  MultiTasks,
};

}  // namespace tilegrad::ad::cuda_backend
