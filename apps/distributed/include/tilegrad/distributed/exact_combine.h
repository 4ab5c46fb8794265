// The deterministic combination of float arrays over the ranks of a group: for every element, the exact sum of
// the ranks' values (element/exact_combine.h), in two all-reduces: MAX of a byte per element, SUM of an int64 per
// element (9 bytes per element and rank instead of a float all-reduce's 4). The result does not depend on the
// reduction order, the NCCL algorithm or the backend; with one rank it is the input itself, bit for bit; any
// non-finite contribution makes the element NaN.
#pragma once
#include <cstddef>
#include <vector>

#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"
#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed {

// A float array combined in place, its result multiplied by `scale` (1: the sum; 1 / ranks: the mean).
struct ExactSegment {
  View<float> values;
  float scale = 1.0f;
};

// The slots of the workspace exact_all_reduce takes its scratch from.
enum ExactCombineSlot : std::size_t { kExactCodes = 0, kExactIntegers };

// Replaces every element of every segment by its sum over the ranks (times its scale). Every rank passes segments
// of the same sizes in the same order, on comm.device(). Scratch comes from `workspace` (ExactCombineSlot).
void exact_all_reduce(Communicator& comm, const std::vector<ExactSegment>& segments, Workspace& workspace);

}  // namespace tilegrad::distributed
