// Internal helpers of the CUDA rasterizer: the packed projection record, stage timing with CUDA events.
#pragma once
#include <cuda_runtime.h>

#include "cpu/pipeline.h"
#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/rasterizer/element/blend.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::raster::cuda_backend {

using cpu::kProjWidth;  // the CUDA record has the CPU layout (cpu::Proj)
constexpr unsigned kBlock = 256;

// The splat part of a projection record.
__device__ inline Splat<float> splat_of(const float* r) {
  return {r[cpu::kU], r[cpu::kV], r[cpu::kA], r[cpu::kB], r[cpu::kC], r[cpu::kOpacity]};
}

// Records CUDA events between stages when timing is requested; elapsed times are read at the end.
class StageClock {
 public:
  explicit StageClock(bool on) : m_on(on) {
    if (m_on) mark();
  }
  ~StageClock() {
    for (cudaEvent_t e : m_events) TG_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
  }
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;
  void mark() {
    if (!m_on) return;
    cudaEvent_t e;
    TG_CUDA_CHECK(cudaEventCreate(&e));
    TG_CUDA_CHECK(cudaEventRecord(e, 0));
    m_events.push_back(e);
  }
  // Milliseconds between mark i and mark i + 1.
  double elapsed(std::size_t i) {
    if (!m_on || i + 1 >= m_events.size()) return 0.0;
    TG_CUDA_CHECK(cudaEventSynchronize(m_events[i + 1]));
    float ms = 0;
    TG_CUDA_CHECK(cudaEventElapsedTime(&ms, m_events[i], m_events[i + 1]));
    return ms;
  }

 private:
  bool m_on;
  std::vector<cudaEvent_t> m_events;
};

}  // namespace tilegrad::raster::cuda_backend
