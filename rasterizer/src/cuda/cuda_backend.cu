// The CUDA backend: its workspace and accumulator, held between calls, and the drivers (forward.cu, backward.cu).
#include "cuda/common.cuh"
#include "cuda/drivers.h"
#include "cuda/workspace_slots.h"

namespace tilegrad::raster::cuda_backend {
namespace {

__global__ void nonfinite_kernel(const float* v, std::size_t n, unsigned* flag) {
  const std::size_t i = cuda::global_thread();
  const bool bad = i < n && !isfinite(v[i]);
  if (__any_sync(0xFFFFFFFFu, bad) && cuda::lane_id() == 0) *flag = 1u;  // any writer: same value
}

// Where find_nonfinite's flags land on the host (pinned, so the copy is queued like a kernel), and the event after
// that copy, which nonfinite_in waits for.
class NonfiniteAnswer {
 public:
  NonfiniteAnswer() {
    TG_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&m_flags), Backend::kNonfiniteViews * sizeof(unsigned),
                                cudaHostAllocDefault));
    const cudaError_t err = cudaEventCreateWithFlags(&m_copied, cudaEventDisableTiming);
    if (err != cudaSuccess) cudaFreeHost(m_flags);
    TG_CUDA_CHECK(err);
  }
  ~NonfiniteAnswer() {
    cudaEventSynchronize(m_copied);  // a copy still queued writes into m_flags
    cudaEventDestroy(m_copied);
    cudaFreeHost(m_flags);
  }
  NonfiniteAnswer(const NonfiniteAnswer&) = delete;
  NonfiniteAnswer& operator=(const NonfiniteAnswer&) = delete;
  // Queues the copy of the device flags, then the event.
  void queue(const unsigned* device_flags) {
    TG_CUDA_CHECK(cudaMemcpyAsync(m_flags, device_flags, Backend::kNonfiniteViews * sizeof(unsigned),
                                  cudaMemcpyDeviceToHost, 0));
    TG_CUDA_CHECK(cudaEventRecord(m_copied, 0));
  }
  bool flag(int k) {
    TG_CUDA_CHECK(cudaEventSynchronize(m_copied));
    return m_flags[k] != 0;
  }

 private:
  unsigned* m_flags = nullptr;
  cudaEvent_t m_copied = nullptr;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend() : m_workspace(Device::Cuda), m_accumulator(Device::Cuda) {}

  std::unique_ptr<ForwardState> forward(const GaussiansView& g, const ProjectionCamera& camera,
                                        const RasterSettings& settings, ForwardOutput& out,
                                        StageTimes* times) override {
    auto s = std::make_unique<DeviceState>();
    const int active_degree = settings.sh_degree < 0 ? g.sh_degree : settings.sh_degree;
    s->projection = projection_settings(camera, settings, active_degree);
    s->settings = settings;
    cuda_backend::forward(g, *s, out, m_workspace, times);
    return s;
  }

  Gradients backward(const GaussiansView& g, const ForwardState& state, const LossGradients<float>& dl,
                     const BackwardSettings& settings, StageTimes* times) override {
    return cuda_backend::backward(g, static_cast<const DeviceState&>(state), dl, settings, m_accumulator,
                                  m_workspace, times);
  }

  void find_nonfinite(const View<const float>* views, int n) override {
    TG_ASSERT(n <= kNonfiniteViews, "find_nonfinite: ", n, " views");
    if (!m_nonfinite) m_nonfinite = std::make_unique<NonfiniteAnswer>();
    auto* flags = m_workspace.slot<unsigned>(Slot::NonfiniteFlag, kNonfiniteViews);
    TG_CUDA_CHECK(cudaMemsetAsync(flags, 0, kNonfiniteViews * sizeof(unsigned)));
    for (int k = 0; k < n; ++k)
      cuda::launch(nonfinite_kernel, views[k].size(), kBlock, 0, views[k].data(), views[k].size(), flags + k);
    m_nonfinite->queue(flags);
  }
  bool nonfinite_in(int k) override { return m_nonfinite->flag(k); }

  std::size_t workspace_bytes() const override { return m_workspace.bytes(); }

 private:
  Workspace m_workspace;
  Accumulator m_accumulator;
  std::unique_ptr<NonfiniteAnswer> m_nonfinite;  // made by the first find_nonfinite
};

}  // namespace
}  // namespace tilegrad::raster::cuda_backend

namespace tilegrad::raster {
std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda_backend::CudaBackend>(); }
}  // namespace tilegrad::raster
