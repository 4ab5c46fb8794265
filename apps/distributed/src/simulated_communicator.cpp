// Simulated ranks: every collective is an exchange of host pointers at the group's meeting point (host_group.h);
// each rank copies or reduces what it needs from the others, in rank order.
#include <cstring>

#include "host_group.h"
#include "reduce_host.h"
#include "tilegrad/core/error.h"
#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed {

namespace detail {

// Host collectives over a HostGroup, for both kinds of communicator.
void host_all_gather(HostGroup& g, int rank, const void* send, void* recv, std::size_t bytes) {
  g.exchange(rank, send, [&](const std::vector<const void*>& all) {
    for (std::size_t r = 0; r < all.size() && bytes > 0; ++r)
      std::memcpy(static_cast<char*>(recv) + r * bytes, all[r], bytes);
  });
}

void host_broadcast(HostGroup& g, int rank, void* data, std::size_t bytes, int root) {
  TG_CHECK_ARG(root >= 0 && root < g.size(), "broadcast: root ", root, " is not a rank of ", g.size());
  g.exchange(rank, data, [&](const std::vector<const void*>& all) {
    if (rank != root && bytes > 0) std::memcpy(data, all[std::size_t(root)], bytes);
  });
}

std::vector<std::vector<char>> host_gather(HostGroup& g, int rank, const void* data, std::size_t bytes, int root) {
  TG_CHECK_ARG(root >= 0 && root < g.size(), "gather: root ", root, " is not a rank of ", g.size());
  struct Part {
    const void* data;
    std::size_t bytes;
  };
  const Part mine{data, bytes};
  std::vector<std::vector<char>> out;
  g.exchange(rank, &mine, [&](const std::vector<const void*>& all) {
    if (rank != root) return;
    for (const void* p : all) {
      const Part& part = *static_cast<const Part*>(p);
      const char* begin = static_cast<const char*>(part.data);
      out.emplace_back(begin, begin + part.bytes);
    }
  });
  return out;
}

}  // namespace detail

namespace {

struct AllToAllSide {
  const void* send;
  const std::vector<std::size_t>* send_bytes;
  const std::vector<std::size_t>* send_offsets;
};

class SimulatedCommunicator final : public detail::GroupCommunicator {
 public:
  SimulatedCommunicator(std::shared_ptr<detail::HostGroup> group, int rank) : GroupCommunicator(std::move(group), rank) {}
  Device device() const override { return Device::Cpu; }

  void all_reduce(void* data, std::size_t count, DataType type, ReduceOp op) override {
    count_bytes(count * type_size(type));
    std::vector<char> result(count * type_size(type));
    m_group->exchange(m_rank, data, [&](const std::vector<const void*>& all) {
      if (count > 0) detail::reduce_host(all, count, type, op, result.data());
    });
    if (!result.empty()) std::memcpy(data, result.data(), result.size());
  }

  void all_gather(const void* send, void* recv, std::size_t bytes) override {
    count_bytes(bytes);
    detail::host_all_gather(*m_group, m_rank, send, recv, bytes);
  }

  void broadcast(void* data, std::size_t bytes, int root) override {
    count_bytes(m_rank == root ? bytes : 0);
    detail::host_broadcast(*m_group, m_rank, data, bytes, root);
  }

  void all_to_all_v(const void* send, const std::vector<std::size_t>& send_bytes,
                    const std::vector<std::size_t>& send_offsets, void* recv, const std::vector<std::size_t>& recv_bytes,
                    const std::vector<std::size_t>& recv_offsets) override {
    const std::size_t n = std::size_t(size());
    TG_CHECK_ARG(send_bytes.size() == n && send_offsets.size() == n && recv_bytes.size() == n &&
                     recv_offsets.size() == n,
                 "all_to_all_v: every size and offset list needs one entry per rank (", n, ")");
    std::size_t sent = 0;
    for (std::size_t r = 0; r < n; ++r) sent += r == std::size_t(m_rank) ? 0 : send_bytes[r];
    count_bytes(sent);
    const AllToAllSide mine{send, &send_bytes, &send_offsets};
    m_group->exchange(m_rank, &mine, [&](const std::vector<const void*>& all) {
      for (std::size_t s = 0; s < n; ++s) {
        const auto& from = *static_cast<const AllToAllSide*>(all[s]);
        const std::size_t bytes = (*from.send_bytes)[std::size_t(m_rank)];
        TG_ASSERT(bytes == recv_bytes[s], "all_to_all_v: rank ", s, " sends ", bytes, " bytes to rank ", m_rank,
                  ", which expects ", recv_bytes[s]);
        if (bytes > 0)
          std::memcpy(static_cast<char*>(recv) + recv_offsets[s],
                      static_cast<const char*>(from.send) + (*from.send_offsets)[std::size_t(m_rank)], bytes);
      }
    });
  }

  void abort() override { m_group->abort(); }

 private:
  void count_bytes(std::size_t bytes) { count(bytes); }
};

}  // namespace

CommGroup make_simulated_group(int ranks) {
  TG_CHECK_ARG(ranks >= 1, "a group needs at least one rank, got ", ranks);
  auto group = std::make_shared<detail::HostGroup>(ranks);
  CommGroup out;
  for (int r = 0; r < ranks; ++r) out.push_back(std::make_unique<SimulatedCommunicator>(group, r));
  return out;
}

}  // namespace tilegrad::distributed
