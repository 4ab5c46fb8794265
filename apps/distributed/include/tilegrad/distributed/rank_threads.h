// One thread per rank: rank 0 is the caller of run(), ranks 1..N-1 are threads that live as long as this object,
// so everything a rank allocates on its GPU is made, used and freed on the thread bound to that GPU.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed {

class RankThreads {
 public:
  // The group must outlive this object.
  explicit RankThreads(CommGroup& group);
  ~RankThreads();
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;

  int size() const { return int(m_group.size()); }
  Communicator& comm(int rank) { return *m_group[std::size_t(rank)]; }

  // Runs task(rank) for every rank at once, each on its rank's thread with its GPU bound, and returns when all
  // are done. When a rank throws, the group is aborted (waiting collectives elsewhere throw Aborted) and the
  // first failure by rank, other than Aborted, is rethrown here.
  void run(const std::function<void(int rank)>& task);

 private:
  void worker(int rank);
  CommGroup& m_group;
  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  const std::function<void(int)>* m_task = nullptr;
  std::uint64_t m_generation = 0;
  int m_done = 0;
  bool m_stop = false;
  std::vector<std::exception_ptr> m_errors;
};

}  // namespace tilegrad::distributed
