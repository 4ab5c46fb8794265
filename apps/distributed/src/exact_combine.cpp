// exact_all_reduce: per batch of segments, the exponent codes, MAX over ranks, the integers, SUM over ranks, the
// conversion back (exact_combine.h). Kernels in kernels.h.
#include "tilegrad/distributed/exact_combine.h"

#include "kernels.h"
#include "tilegrad/core/error.h"

namespace tilegrad::distributed {

void exact_all_reduce(Communicator& comm, const std::vector<ExactSegment>& segments, Workspace& workspace) {
  const Device device = comm.device();
  TG_CHECK_ARG(workspace.device() == device, "exact_all_reduce: workspace on ", to_string(workspace.device()),
               ", communicator on ", to_string(device));
  for (const ExactSegment& s : segments)
    check_view(View<const float>(s.values), s.values.size(), device, "exact_all_reduce segment");
  for (std::size_t first = 0; first < segments.size(); first += detail::kMaxSegments) {
    detail::ExactArgs a{};
    a.segments = int(std::min<std::size_t>(detail::kMaxSegments, segments.size() - first));
    a.begin[0] = 0;
    for (int s = 0; s < a.segments; ++s) {
      const ExactSegment& seg = segments[first + std::size_t(s)];
      a.values[s] = seg.values.data();
      a.scale[s] = seg.scale;
      a.begin[s + 1] = a.begin[s] + seg.values.size();
    }
    a.n = a.begin[a.segments];
    if (a.n == 0) continue;
    a.ranks = std::uint32_t(comm.size());
    a.codes = workspace.slot<std::uint8_t>(kExactCodes, a.n);
    a.ints = workspace.slot<long long>(kExactIntegers, a.n);
    detail::exact_codes(device, a);
    comm.all_reduce(a.codes, a.n, DataType::U8, ReduceOp::Max);
    detail::exact_quantize(device, a);
    static_assert(sizeof(long long) == 8, "int64 sums");
    comm.all_reduce(a.ints, a.n, DataType::I64, ReduceOp::Sum);
    detail::exact_dequantize(device, a);
  }
}

}  // namespace tilegrad::distributed
