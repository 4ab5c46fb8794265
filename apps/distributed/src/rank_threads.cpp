// RankThreads: a task generation counter wakes the workers; each records its exception; the caller runs rank 0.
#include "tilegrad/distributed/rank_threads.h"

namespace tilegrad::distributed {

RankThreads::RankThreads(CommGroup& group) : m_group(group), m_errors(group.size()) {
  for (int r = 1; r < size(); ++r) m_threads.emplace_back([this, r] { worker(r); });
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_cv.notify_all();
  for (std::thread& t : m_threads) t.join();
}

void RankThreads::worker(int rank) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_cv.wait(lock, [&] { return m_stop || m_generation != seen; });
      if (m_stop) return;
      seen = m_generation;
      task = m_task;
    }
    std::exception_ptr error;
    try {
      comm(rank).bind_thread();
      (*task)(rank);
    } catch (...) {
      error = std::current_exception();
      for (auto& c : m_group) c->abort();
    }
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_errors[std::size_t(rank)] = error;
      ++m_done;
    }
    m_cv.notify_all();
  }
}

void RankThreads::run(const std::function<void(int)>& task) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_task = &task;
    m_done = 0;
    for (auto& e : m_errors) e = nullptr;
    ++m_generation;
  }
  m_cv.notify_all();
  std::exception_ptr error0;
  try {
    comm(0).bind_thread();
    task(0);
  } catch (...) {
    error0 = std::current_exception();
    for (auto& c : m_group) c->abort();
  }
  std::vector<std::exception_ptr> errors;
  {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [&] { return m_done == size() - 1; });
    m_errors[0] = error0;
    errors = m_errors;
  }
  std::exception_ptr aborted;
  for (const std::exception_ptr& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const Aborted&) {
      if (!aborted) aborted = e;
    } catch (...) {
      throw;
    }
  }
  if (aborted) std::rethrow_exception(aborted);
}

}  // namespace tilegrad::distributed
