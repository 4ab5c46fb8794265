// Internal: the meeting point of the ranks of one group in this process. Each collective is an exchange: every
// rank publishes a pointer, then each runs its part reading the others' pointers, then all leave together (so
// what was published stays valid while anyone reads it). Failures elsewhere end every wait with Aborted.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed::detail {

class HostGroup {
 public:
  explicit HostGroup(int ranks);
  int size() const { return m_size; }
  // Publishes `mine`, waits for every rank, calls read(pointers of all ranks, by rank), waits for every rank to
  // have finished reading.
  void exchange(int rank, const void* mine, const std::function<void(const std::vector<const void*>&)>& read);
  void abort();
  bool aborted() const;

 private:
  void wait_all();
  int m_size;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  int m_arrived = 0;
  std::uint64_t m_generation = 0;
  bool m_aborted = false;
  std::vector<const void*> m_slots;
};

// Host collectives over a group's meeting point (both kinds of communicator use them).
void host_all_gather(HostGroup& group, int rank, const void* send, void* recv, std::size_t bytes);
void host_broadcast(HostGroup& group, int rank, void* data, std::size_t bytes, int root);
std::vector<std::vector<char>> host_gather(HostGroup& group, int rank, const void* data, std::size_t bytes, int root);

// What both kinds of communicator share: the rank in a group that meets in this process, and the host
// collectives over it.
class GroupCommunicator : public Communicator {
 public:
  int rank() const override { return m_rank; }
  int size() const override { return m_group->size(); }
  void host_all_gather(const void* send, void* recv, std::size_t bytes) override {
    detail::host_all_gather(*m_group, m_rank, send, recv, bytes);
  }
  void host_broadcast(void* data, std::size_t bytes, int root) override {
    detail::host_broadcast(*m_group, m_rank, data, bytes, root);
  }
  std::vector<std::vector<char>> host_gather(const void* data, std::size_t bytes, int root) override {
    return detail::host_gather(*m_group, m_rank, data, bytes, root);
  }

 protected:
  GroupCommunicator(std::shared_ptr<HostGroup> group, int rank) : m_group(std::move(group)), m_rank(rank) {}
  std::shared_ptr<HostGroup> m_group;
  int m_rank;
};

}  // namespace tilegrad::distributed::detail
