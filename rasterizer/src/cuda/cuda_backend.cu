// The CUDA backend: its workspace and accumulator, held between calls, and the drivers (forward.cu, backward.cu).
#include "cuda/common.cuh"
#include "cuda/drivers.h"
#include "cuda/nonfinite_check.h"
#include "cuda/workspace_slots.h"

namespace tilegrad::raster::cuda_backend {
namespace {

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
    const auto& s = static_cast<const DeviceState&>(state);
    NonfiniteCheck* check = nullptr;
    if (settings.check_finite) {
      if (!m_check) m_check = std::make_unique<NonfiniteCheck>();
      const TileGrid& grid = s.grid();
      m_check->fork(checked_views(dl, std::size_t(grid.width) * grid.height, Device::Cuda),
                    m_workspace.slot<unsigned>(Slot::NonfiniteFlags, NonfiniteCheck::kViews));
      check = m_check.get();
    }
    try {
      return cuda_backend::backward(g, s, dl, settings, m_accumulator, m_workspace, times, check);
    } catch (...) {
      if (check) check->close();  // nobody asks for the answer now: rejoin the check's branch
      throw;
    }
  }
  bool nonfinite_in(int k) override { return m_check->flag(k); }

  std::size_t workspace_bytes() const override { return m_workspace.bytes(); }

 private:
  Workspace m_workspace;
  Accumulator m_accumulator;
  std::unique_ptr<NonfiniteCheck> m_check;  // made by the first backward that checks its input
};

}  // namespace
}  // namespace tilegrad::raster::cuda_backend

namespace tilegrad::raster {
std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda_backend::CudaBackend>(); }
}  // namespace tilegrad::raster
