// CUDA event pair for Timer.
#include <cuda_runtime.h>

#include "../timer_impl.h"
#include "tilegrad/core/cuda/check.h"

namespace tilegrad::profiling::detail {
namespace {

class CudaEvents final : public EventPair {
 public:
  CudaEvents() {
    TG_CUDA_CHECK(cudaEventCreate(&m_start));
    TG_CUDA_CHECK(cudaEventCreate(&m_stop));
  }
  ~CudaEvents() override {
    TG_CUDA_CHECK_NOTHROW(cudaEventDestroy(m_start));
    TG_CUDA_CHECK_NOTHROW(cudaEventDestroy(m_stop));
  }
  void record_start() override { TG_CUDA_CHECK(cudaEventRecord(m_start, 0)); }
  double record_stop_ms() override {
    TG_CUDA_CHECK(cudaEventRecord(m_stop, 0));
    TG_CUDA_CHECK(cudaEventSynchronize(m_stop));
    float ms = 0.0f;
    TG_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start, m_stop));
    return ms;
  }

 private:
  cudaEvent_t m_start{}, m_stop{};
};

}  // namespace

std::unique_ptr<EventPair> make_cuda_events() { return std::make_unique<CudaEvents>(); }

}  // namespace tilegrad::profiling::detail
