// A side branch of a stream: work that may overlap the caller's stream runs on a second stream of the same device,
// forked from and joined back into the caller's stream by events, so everything queued after the join on the
// caller's stream waits for both. One side stream per device (non-blocking, created on first use, kept for the
// process); a branch's events are its own, so branches of several host threads order correctly.
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

class SideBranch {
 public:
  // The side stream waits for what `main` has queued so far.
  explicit SideBranch(cudaStream_t main) : m_main(main), m_side(side_stream()) {
    TG_CUDA_CHECK(cudaEventCreateWithFlags(&m_fork, cudaEventDisableTiming));
    TG_CUDA_CHECK(cudaEventCreateWithFlags(&m_join, cudaEventDisableTiming));
    TG_CUDA_CHECK(cudaEventRecord(m_fork, m_main));
    TG_CUDA_CHECK(cudaStreamWaitEvent(m_side, m_fork, 0));
  }
  SideBranch(const SideBranch&) = delete;
  SideBranch& operator=(const SideBranch&) = delete;
  ~SideBranch() {
    if (!m_joined) {  // an exception left the branch open: still order `main` after it, without throwing
      cudaEventRecord(m_join, m_side);
      cudaStreamWaitEvent(m_main, m_join, 0);
    }
    cudaEventDestroy(m_fork);  // released once the recorded work completes
    cudaEventDestroy(m_join);
  }
  cudaStream_t stream() const { return m_side; }
  // `main` waits for what the side stream has queued so far.
  void join() {
    TG_CUDA_CHECK(cudaEventRecord(m_join, m_side));
    TG_CUDA_CHECK(cudaStreamWaitEvent(m_main, m_join, 0));
    m_joined = true;
  }

 private:
  cudaStream_t m_main, m_side;
  cudaEvent_t m_fork = nullptr, m_join = nullptr;
  bool m_joined = false;
};

}  // namespace tilegrad::cuda
