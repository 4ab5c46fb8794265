// Internal: the per-backend implementations behind accumulator.h. Arguments are validated by the caller.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::ad {

struct Problem {
  const std::uint32_t* ids;      // may be null for Owned
  const float* values;
  const std::uint32_t* offsets;  // Owned
  std::size_t count;
  std::size_t num_params;
  int width;
  float* grad;
  bool check;
  std::uint32_t max_segment_rows;  // Owned: 0, or a bound on every segment's length (a hint)
  bool overwrite;                  // SortReduce / Owned: grad[p] = sum + 0 for every p (AccumulateOptions)
};

// Bits of the error word the implementations report (0 = fine).
enum : unsigned { kIdOutOfRange = 1u, kBadOffsets = 2u, kIdOutsideSegment = 4u };

namespace cpu_backend {
unsigned accumulate(Accumulation strategy, const Problem& p);
}
#if TILEGRAD_WITH_CUDA
namespace cuda_backend {
unsigned accumulate(Accumulation strategy, const Problem& p, Workspace& ws);
}
#endif

}  // namespace tilegrad::ad
