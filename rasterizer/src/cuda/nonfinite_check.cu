// The backward's finiteness check on a side branch (nonfinite_check.h).
#include "cuda/common.cuh"
#include "cuda/nonfinite_check.h"

namespace tilegrad::raster::cuda_backend {
namespace {

// A few blocks per SM, each thread striding over the view with kLoads loads in flight per step. The check runs beside
// the backward's work, so it should take little of the GPU at any moment: a block per 256 elements (8.3 M at
// 1080p, some 32,000 blocks) competed with the blend backward for the SMs' block slots and cost Owned's backward
// 6-14 us on the garden grids (docs/PERFORMANCE.md, "The check in a few blocks").
constexpr int kLoads = 8;
constexpr int kCheckBlocksPerSm = 2;
__global__ void nonfinite_kernel(const float* v, std::size_t n, unsigned* flag) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  bool bad = false;
  for (std::size_t i0 = cuda::global_thread(); i0 < n; i0 += kLoads * stride) {
    float x[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) x[k] = i0 + k * stride < n ? v[i0 + k * stride] : 0.0f;
#pragma unroll
    for (int k = 0; k < kLoads; ++k) bad |= !isfinite(x[k]);
  }
  if (__any_sync(0xFFFFFFFFu, bad) && cuda::lane_id() == 0) *flag = 1u;  // any writer: same value
}

}  // namespace

NonfiniteCheck::NonfiniteCheck() {
  TG_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&m_flags), kViews * sizeof(unsigned), cudaHostAllocDefault));
  const cudaError_t err = cudaEventCreateWithFlags(&m_copied, cudaEventDisableTiming);
  if (err != cudaSuccess) cudaFreeHost(m_flags);
  TG_CUDA_CHECK(err);
}

NonfiniteCheck::~NonfiniteCheck() {
  close();
  cudaEventSynchronize(m_copied);  // a copy still queued writes into m_flags
  cudaEventDestroy(m_copied);
  cudaFreeHost(m_flags);
}

void NonfiniteCheck::fork(const Views& views, unsigned* device_flags) {
  close();
  m_views = views;
  m_device_flags = device_flags;
  m_launched = false;
  m_branch.emplace(cudaStream_t(0));
}

void NonfiniteCheck::launch() {
  TG_ASSERT(m_branch && !m_launched, "NonfiniteCheck::launch without fork");
  const cudaStream_t side = m_branch->stream();
  TG_CUDA_CHECK(cudaMemsetAsync(m_device_flags, 0, kViews * sizeof(unsigned), side));
  for (int k = 0; k < kViews; ++k) {
    const std::size_t n = m_views[k].size();
    if (n == 0) continue;
    const unsigned blocks = cuda::persistent_blocks((n + kLoads - 1) / kLoads, kBlock, kCheckBlocksPerSm);
    nonfinite_kernel<<<blocks, kBlock, 0, side>>>(m_views[k].data(), n, m_device_flags + k);
    TG_CUDA_CHECK_LAUNCH();
  }
  TG_CUDA_CHECK(
      cudaMemcpyAsync(m_flags, m_device_flags, kViews * sizeof(unsigned), cudaMemcpyDeviceToHost, side));
  TG_CUDA_CHECK(cudaEventRecord(m_copied, side));
  m_launched = true;
}

bool NonfiniteCheck::flag(int k) {
  TG_ASSERT(m_launched && k >= 0 && k < kViews, "NonfiniteCheck::flag(", k, ") of a check not launched");
  if (m_branch) {
    m_branch->join();
    m_branch.reset();
  }
  TG_CUDA_CHECK(cudaEventSynchronize(m_copied));
  return m_flags[k] != 0;
}

void NonfiniteCheck::close() noexcept { m_branch.reset(); }

}  // namespace tilegrad::raster::cuda_backend
