// A side branch of a stream: work that may overlap the caller's stream runs on a second stream of the same device,
// forked from and joined back into the caller's stream by an event, so everything queued after the join on the
// caller's stream waits for both. One side stream per device (non-blocking, created on first use, kept for the
// process). Each fork and join records the event and queues the wait on it at once, and a wait keeps what the event
// held when it was queued (later records do not change it), so one event per host thread and device serves every
// branch, nested ones included, and branches of several host threads order correctly.
#pragma once
#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "tilegrad/core/cuda/check.h"

namespace tilegrad::cuda {

inline cudaStream_t side_stream() {
  static std::mutex mutex;
  static std::vector<cudaStream_t> streams;
  int device = 0;
  TG_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (streams.size() <= std::size_t(device)) streams.resize(std::size_t(device) + 1, nullptr);
  if (!streams[device]) TG_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[device], cudaStreamNonBlocking));
  return streams[device];
}

// The calling thread's event on the current device (created on first use, kept for the thread).
inline cudaEvent_t branch_event() {
  thread_local std::vector<cudaEvent_t> events;
  int device = 0;
  TG_CUDA_CHECK(cudaGetDevice(&device));
  if (events.size() <= std::size_t(device)) events.resize(std::size_t(device) + 1, nullptr);
  if (!events[device]) TG_CUDA_CHECK(cudaEventCreateWithFlags(&events[device], cudaEventDisableTiming));
  return events[device];
}

class SideBranch {
 public:
  // The side stream waits for what `main` has queued so far.
  explicit SideBranch(cudaStream_t main) : m_main(main), m_side(side_stream()), m_event(branch_event()) {
    TG_CUDA_CHECK(cudaEventRecord(m_event, m_main));
    TG_CUDA_CHECK(cudaStreamWaitEvent(m_side, m_event, 0));
  }
  SideBranch(const SideBranch&) = delete;
  SideBranch& operator=(const SideBranch&) = delete;
  ~SideBranch() {
    if (!m_joined) {  // not joined (an exception, or a branch dropped): still order `main` after it, without throwing
      cudaEventRecord(m_event, m_side);
      cudaStreamWaitEvent(m_main, m_event, 0);
    }
  }
  cudaStream_t stream() const { return m_side; }
  // `main` waits for what the side stream has queued so far.
  void join() {
    TG_CUDA_CHECK(cudaEventRecord(m_event, m_side));
    TG_CUDA_CHECK(cudaStreamWaitEvent(m_main, m_event, 0));
    m_joined = true;
  }

 private:
  cudaStream_t m_main, m_side;
  cudaEvent_t m_event;
  bool m_joined = false;
};

}  // namespace tilegrad::cuda
