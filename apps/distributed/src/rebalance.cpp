// Rebalancing the parts of a partitioned model (rebalance.h). The rows of a part, in global order, are those for
// lower ranks, those that stay, those for higher ranks (the ranges are contiguous); the new part is the rows from
// lower ranks, those that stayed, the rows from higher ranks.
#include "tilegrad/distributed/rebalance.h"

#include "kernels.h"
#include "model_fields.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/distributed/partition.h"

namespace tilegrad::distributed {

training::GaussianModel rebalanced_part(Communicator& comm, const training::GaussianModel& part,
                                        const std::vector<std::size_t>& old_begin,
                                        const std::vector<std::size_t>& new_begin) {
  const int ranks = comm.size(), me = comm.rank();
  const std::size_t n = std::size_t(ranks), r = std::size_t(me);
  TG_CHECK_ARG(old_begin.size() == n + 1 && new_begin.size() == n + 1, "rebalanced_part: ", old_begin.size(), " and ",
               new_begin.size(), " range bounds for ", ranks, " ranks");
  TG_CHECK_ARG(part.count() == old_begin[r + 1] - old_begin[r], "rebalanced_part: rank ", me, " holds ",
               part.count(), " rows, its range has ", old_begin[r + 1] - old_begin[r]);
  // Rows that stay on their rank leave the exchange (every rank zeroes the whole diagonal: the same plan).
  std::vector<std::uint64_t> moves = moves_between_ranges(old_begin, new_begin);
  const std::size_t stay = std::size_t(moves[r * n + r]);
  for (std::size_t k = 0; k < n; ++k) moves[k * n + k] = 0;
  std::size_t to_lower = 0, from_lower = 0;
  for (std::size_t k = 0; k < r; ++k) {
    to_lower += std::size_t(moves[r * n + k]);
    from_lower += std::size_t(moves[k * n + r]);
  }
  const Device device = part.device();
  const detail::Fields src = detail::model_fields(part);
  const std::size_t record = std::size_t(src.record);
  const ExchangePlan x = plan_exchange(moves, ranks, me, record * sizeof(float));
  training::GaussianModel next = detail::empty_model(x.recv_total + stay, part.params.sh_degree, device);
  next.adam_step = part.adam_step;
  next.params.version = part.params.version + 1;
  const detail::Fields dst = detail::model_fields(next);
  {
    Buffer<float> send(std::max<std::size_t>(x.send_total, 1) * record, device);
    detail::pack(device, detail::PackArgs{to_lower, src, nullptr, 0, send.data()});
    detail::pack(device, detail::PackArgs{x.send_total - to_lower, src, nullptr, to_lower + stay,
                                          send.data() + to_lower * record});
    Buffer<float> recv(std::max<std::size_t>(x.recv_total, 1) * record, device);
    comm.all_to_all_v(send.data(), x.send_bytes, x.send_offsets, recv.data(), x.recv_bytes, x.recv_offsets);
    detail::unpack(device, detail::UnpackArgs{from_lower, dst, recv.data(), nullptr, 0, false});
    detail::unpack(device, detail::UnpackArgs{x.recv_total - from_lower, dst, recv.data() + from_lower * record,
                                              nullptr, from_lower + stay, false});
  }
  for (int k = 0; k < src.count; ++k) {
    const std::size_t w = std::size_t(src.width[k]);
    memory::copy(dst.data[k] + from_lower * w, device, src.data[k] + to_lower * w, device, stay * w * sizeof(float));
  }
  return next;
}

}  // namespace tilegrad::distributed
