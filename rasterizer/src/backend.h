// Internal interface between the Rasterizer and its CPU and CUDA backends (cpu/, cuda/). The Rasterizer has
// validated every argument; a backend's backward receives only a state that its own device's forward saved.
#pragma once
#include <array>
#include <cstddef>
#include <iterator>
#include <memory>

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/element/record.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::raster {

// What a forward saves for its backward (each backend derives its own).
struct ForwardState {
  virtual ~ForwardState() = default;
  std::size_t instances = 0, visible = 0;  // (Gaussian, tile) pairs rendered; Gaussians with at least one
};

inline ParamArrays<float> param_arrays(const GaussiansView& g) {
  const bool colors = !g.colors.empty();
  return {g.count,           g.sh_degree,     g.means.data(),
          g.log_scales.data(), g.quats.data(), g.opacity_logits.data(),
          colors ? nullptr : g.sh.data(), colors ? g.colors.data() : nullptr};
}

// The gradient buffers of a backward on `device`: every parameter group of g (sh or colors, the other empty),
// mean2d, and mean2d_abs when settings ask for it.
inline Gradients allocate_gradients(const GaussiansView& g, const BackwardSettings& settings, Device device) {
  const std::size_t n = g.count;
  const bool colors = !g.colors.empty();
  Gradients grads;
  grads.means = Buffer<float>(n * 3, device);
  grads.log_scales = Buffer<float>(n * 3, device);
  grads.quats = Buffer<float>(n * 4, device);
  grads.opacity_logits = Buffer<float>(n, device);
  grads.sh = Buffer<float>(colors ? 0 : n * sh_coefficients(g.sh_degree) * 3, device);
  grads.colors = Buffer<float>(colors ? n * 3 : 0, device);
  grads.mean2d = Buffer<float>(n * 2, device);
  grads.mean2d_abs = Buffer<float>(settings.absolute_mean2d ? n * 2 : 0, device);
  return grads;
}

// dL/d of the forward's outputs on the backend's device: image [H, W, 3]; alpha and depth [H, W] or null (zero).
template <class T>
struct LossGradients {
  const T* image;
  const T* alpha;
  const T* depth;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Renders into out.image and out.alpha, and out.depth with settings.render_depth. times: null, or the stages'
  // milliseconds.
  virtual std::unique_ptr<ForwardState> forward(const GaussiansView& g, const ProjectionCamera& camera,
                                                const RasterSettings& settings, ForwardOutput& out,
                                                StageTimes* times) = 0;
  // With settings.check_finite, dl's views (checked_views) are also checked for NaN and infinite values, and
  // nonfinite_in(k) then answers for the k-th. The CPU backend checks before any work, and returns no gradients
  // when it finds one; the CUDA backend checks beside the backward's work (on a side branch of the stream), and
  // nonfinite_in waits for that answer only.
  virtual Gradients backward(const GaussiansView& g, const ForwardState& state, const LossGradients<float>& dl,
                             const BackwardSettings& settings, StageTimes* times) = 0;
  virtual bool nonfinite_in(int k) = 0;
  // Scratch memory held between calls.
  virtual std::size_t workspace_bytes() const = 0;
};

// The loss gradients the finiteness check reads, in the order nonfinite_in numbers them: dL/dimage [pixels * 3],
// dL/dalpha and dL/ddepth [pixels] (empty where null).
inline constexpr const char* kCheckedViewNames[] = {"dL/dimage", "dL/dalpha", "dL/ddepth"};
inline constexpr std::size_t kCheckedViews = std::size(kCheckedViewNames);
using CheckedViews = std::array<View<const float>, kCheckedViews>;
inline CheckedViews checked_views(const LossGradients<float>& dl, std::size_t pixels, Device device) {
  return {View<const float>(dl.image, pixels * 3, device), View<const float>(dl.alpha, dl.alpha ? pixels : 0, device),
          View<const float>(dl.depth, dl.depth ? pixels : 0, device)};
}

std::unique_ptr<Backend> make_cpu_backend();
#if TILEGRAD_WITH_CUDA
std::unique_ptr<Backend> make_cuda_backend();
#endif

// The backend of `device`, which require_device has accepted.
inline std::unique_ptr<Backend> make_backend(Device device) {
#if TILEGRAD_WITH_CUDA
  if (device == Device::Cuda) return make_cuda_backend();
#endif
  TG_ASSERT(device == Device::Cpu, "no backend for ", to_string(device));
  return make_cpu_backend();
}

}  // namespace tilegrad::raster
