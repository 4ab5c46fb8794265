// Accumulating contributions into a gradient array with a strategy chosen at run time (CPU or CUDA).
#pragma once
#include <cstdint>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad {

// `count` records; record i adds values[i * width + c] to parameter ids[i], component c.
struct Contributions {
  View<const std::uint32_t> ids;     // [count]; optional for Owned (checked against the segments if given)
  View<const float> values;          // [count * width], row-major
  int width = 1;                     // D, 1..32
  View<const std::uint32_t> offsets; // Owned only: records of parameter p are [offsets[p], offsets[p + 1])
                                     // [num_params + 1], offsets[0] = 0, offsets[num_params] = count
  std::size_t count() const { return width > 0 ? values.size() / static_cast<std::size_t>(width) : 0; }
};

struct AccumulateOptions {
  // Validate ids (< num_params) and Owned offsets; on CUDA this costs one device-to-host read per call.
  bool check = true;
  // Owned / segmented_sum: an upper bound on the rows of any one segment, when the caller knows one (0: not
  // known). A short bound lets the CUDA backend sum every segment in one launch (a block per segment) instead
  // of planning chunks over several; the bits are the same either way, and a wrong bound (above or below the
  // longest segment) costs only time.
  std::uint32_t max_segment_rows = 0;
  // SortReduce / Owned / segmented_sum: write grad[p * width + c] = sum (plus 0, which turns a -0 into +0)
  // instead of adding to it, for every parameter p < num_params, those with no contribution included (they get
  // +0). The result is bitwise what adding into a zeroed gradient gives, so a caller can skip zeroing it: the
  // gradient's previous contents are never read. Atomic and WarpAggregated reject it (they only add).
  bool overwrite = false;
};

class Accumulator {
 public:
  explicit Accumulator(Device device = Device::Cpu);

  Device device() const { return m_workspace.device(); }

  // grad[p * width + c] += sum of all contributions to (p, c), for p < num_params = grad.size() / width.
  // All buffers must live on this accumulator's device. Empty input is a no-op (options.overwrite: every
  // component is set to +0).
  void accumulate(Accumulation strategy, const Contributions& in, View<float> grad,
                  const AccumulateOptions& options = {});

  // The deterministic segmented sum alone: grad[p] += exact sum of rows [offsets[p], offsets[p + 1])
  // (options.overwrite: grad[p] = that sum, empty segments included).
  // This is what the Owned strategy runs, exposed for producers that lay out records per owner themselves.
  void segmented_sum(View<const float> values, int width, View<const std::uint32_t> offsets, View<float> grad,
                     const AccumulateOptions& options = {});

  // Scratch memory currently held (sort buffers, chunk partials).
  std::size_t workspace_bytes() const { return m_workspace.bytes(); }

 private:
  Workspace m_workspace;
};

}  // namespace tilegrad
