// The in-process meeting point of a group's ranks (host_group.h).
#include "host_group.h"

#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed::detail {

HostGroup::HostGroup(int ranks) : m_size(ranks), m_slots(std::size_t(ranks), nullptr) {}

void HostGroup::wait_all() {
  std::unique_lock<std::mutex> lock(m_mutex);
  if (m_aborted) throw Aborted("another rank failed");
  const std::uint64_t generation = m_generation;
  if (++m_arrived == m_size) {
    m_arrived = 0;
    ++m_generation;
    m_cv.notify_all();
    return;
  }
  m_cv.wait(lock, [&] { return m_generation != generation || m_aborted; });
  if (m_generation == generation) throw Aborted("another rank failed");
}

void HostGroup::exchange(int rank, const void* mine,
                         const std::function<void(const std::vector<const void*>&)>& read) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_slots[std::size_t(rank)] = mine;
  }
  wait_all();
  std::vector<const void*> all;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    all = m_slots;
  }
  if (read) read(all);
  wait_all();
}

void HostGroup::abort() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_aborted = true;
  m_cv.notify_all();
}

bool HostGroup::aborted() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_aborted;
}

}  // namespace tilegrad::distributed::detail
