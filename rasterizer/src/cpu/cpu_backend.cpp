// The CPU backend: the float instance of the reference pipeline (pipeline.h), writing straight into the
// outputs' host buffers.
#include <cmath>

#include "backend.h"
#include "cpu/pipeline.h"

namespace tilegrad::raster::cpu_backend {
namespace {

struct CpuState final : ForwardState {
  State<float> s;
};

class CpuBackend final : public Backend {
 public:
  std::unique_ptr<ForwardState> forward(const GaussiansView& g, const ProjectionCamera& camera,
                                        const RasterSettings& settings, ForwardOutput& out, StageTimes*) override {
    const std::size_t pixels = std::size_t(camera.width) * camera.height;
    out.image = Buffer<float>(pixels * 3, Device::Cpu);
    out.alpha = Buffer<float>(pixels, Device::Cpu);
    out.depth = Buffer<float>(settings.render_depth ? pixels : 0, Device::Cpu);
    auto state = std::make_unique<CpuState>();
    cpu_backend::forward(param_arrays(g), camera, settings, state->s,
                         {out.image.data(), out.alpha.data(), settings.render_depth ? out.depth.data() : nullptr});
    state->instances = state->s.sorted_slots.size();
    state->visible = state->s.visible;
    return state;
  }

  Gradients backward(const GaussiansView& g, const ForwardState& state, const LossGradients<float>& dl,
                     const BackwardSettings& settings, StageTimes*) override {
    const State<float>& s = static_cast<const CpuState&>(state).s;
    if (settings.check_finite) {
      const auto views = checked_views(dl, std::size_t(s.grid().width) * s.grid().height, Device::Cpu);
      bool refused = false;
      for (std::size_t k = 0; k < views.size(); ++k) {
        m_nonfinite[k] = false;
        for (std::size_t i = 0; i < views[k].size() && !m_nonfinite[k]; ++i)
          m_nonfinite[k] = !std::isfinite(views[k].data()[i]);
        refused = refused || m_nonfinite[k];
      }
      if (refused) return {};  // the caller refuses the input (nonfinite_in): no work for it
    }
    const bool colors = !g.colors.empty();
    Gradients grads = allocate_gradients(g, settings, Device::Cpu);
    cpu_backend::backward(param_arrays(g), s, dl, settings.accumulation,
                          {grads.means.data(), grads.log_scales.data(), grads.quats.data(), grads.opacity_logits.data(),
                           colors ? nullptr : grads.sh.data(), colors ? grads.colors.data() : nullptr,
                           grads.mean2d.data(), settings.absolute_mean2d ? grads.mean2d_abs.data() : nullptr});
    return grads;
  }

  bool nonfinite_in(int k) override { return m_nonfinite[k]; }

  std::size_t workspace_bytes() const override { return 0; }

 private:
  std::array<bool, kCheckedViews> m_nonfinite{};  // of checked_views, from the last backward that checked
};

}  // namespace
}  // namespace tilegrad::raster::cpu_backend

namespace tilegrad::raster {
std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu_backend::CpuBackend>(); }
}  // namespace tilegrad::raster
