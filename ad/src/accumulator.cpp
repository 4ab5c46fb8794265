// Accumulator: argument validation and dispatch to the CPU or CUDA implementation.
#include "tilegrad/ad/accumulator.h"

#include <algorithm>
#include <limits>
#include <string>

#include "backend.h"
#include "tilegrad/core/error.h"

namespace tilegrad {
namespace {

void raise_reported(unsigned errors, const char* where) {
  if (errors & ad::kIdOutOfRange)
    throw InvalidArgument(detail::concat(where, ": a contribution id is >= the number of parameters"));
  if (errors & ad::kBadOffsets)
    throw InvalidArgument(detail::concat(
        where, ": segment offsets must start at 0, never decrease, and end at the number of contributions"));
  if (errors & ad::kIdOutsideSegment)
    throw InvalidArgument(detail::concat(where, ": an id does not match the segment (owner) it is stored in"));
}

ad::Problem make_problem(const Contributions& in, View<float> grad, Device device, bool need_offsets,
                                 bool need_ids, const AccumulateOptions& options, const char* where) {
  TG_CHECK_ARG(in.width >= 1 && in.width <= 32, where, ": width must be in 1..32, got ", in.width);
  const auto width = static_cast<std::size_t>(in.width);
  TG_CHECK_ARG(in.values.size() % width == 0, where, ": values has ", in.values.size(),
               " floats, not a multiple of width ", in.width);
  TG_CHECK_ARG(grad.size() % width == 0, where, ": gradient has ", grad.size(), " floats, not a multiple of width ",
               in.width);
  const std::size_t count = in.values.size() / width;
  const std::size_t num_params = grad.size() / width;
  TG_CHECK_ARG(count < static_cast<std::size_t>(std::numeric_limits<int>::max()), where, ": at most 2^31 - 2 contributions, got ",
               count);
  check_view(in.values, in.values.size(), device, "values");
  check_view(grad, grad.size(), device, "gradient");
  if (need_ids || !in.ids.empty()) check_view(in.ids, count, device, "ids");
  if (need_offsets) check_view(in.offsets, num_params + 1, device, "offsets");
  return {in.ids.empty() ? nullptr : in.ids.data(), in.values.data(), need_offsets ? in.offsets.data() : nullptr,
          count, num_params, in.width, grad.data(), options.check, options.max_segment_rows, options.overwrite};
}

}  // namespace

Accumulator::Accumulator(Device device) : m_workspace(device) {}

void Accumulator::accumulate(Accumulation strategy, const Contributions& in, View<float> grad,
                             const AccumulateOptions& options) {
  const bool owned = strategy == Accumulation::Owned;
  const char* where = to_string(strategy);
  TG_CHECK_ARG(!options.overwrite || owned || strategy == Accumulation::SortReduce, where,
               ": overwrite needs a segmented-sum strategy (SortReduce or Owned); this one only adds");
  ad::Problem p = make_problem(in, grad, device(), owned, !owned, options, where);
  if (p.count == 0 && !owned && !p.overwrite) return;
  if (p.num_params == 0) {
    TG_CHECK_ARG(p.count == 0, where, ": ", p.count, " contributions but the gradient has no parameters");
    return;
  }
  unsigned errors = 0;
  if (device() == Device::Cpu) {
    errors = ad::cpu_backend::accumulate(strategy, p);
  } else {
#if TILEGRAD_WITH_CUDA
    errors = ad::cuda_backend::accumulate(strategy, p, m_workspace);
#else
    throw Unsupported("CUDA accumulation requested but this tilegrad build has no CUDA backend");
#endif
  }
  raise_reported(errors, where);
}

void Accumulator::segmented_sum(View<const float> values, int width, View<const std::uint32_t> offsets,
                                View<float> grad, const AccumulateOptions& options) {
  Contributions in;
  in.values = values;
  in.width = width;
  in.offsets = offsets;
  accumulate(Accumulation::Owned, in, grad, options);
}

}  // namespace tilegrad
