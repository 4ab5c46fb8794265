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

  bool any_nonfinite(View<const float> values) override {
    auto* flag = m_workspace.slot<unsigned>(Slot::NonfiniteFlag, 1);
    TG_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(unsigned)));
    cuda::launch(nonfinite_kernel, values.size(), kBlock, 0, values.data(), values.size(), flag);
    unsigned host = 0;
    TG_CUDA_CHECK(cudaMemcpy(&host, flag, sizeof(host), cudaMemcpyDeviceToHost));
    return host != 0;
  }

  std::size_t workspace_bytes() const override { return m_workspace.bytes(); }

 private:
  Workspace m_workspace;
  Accumulator m_accumulator;
};

}  // namespace
}  // namespace tilegrad::raster::cuda_backend

namespace tilegrad::raster {
std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda_backend::CudaBackend>(); }
}  // namespace tilegrad::raster
