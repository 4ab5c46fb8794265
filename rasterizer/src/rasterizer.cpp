// Rasterizer API: validation, the identity checks between forward and backward, and one dispatch to the
// device's backend (backend.h).
#include "tilegrad/rasterizer/rasterizer.h"

#include <cmath>
#include <cstdint>
#include <iterator>

#include "backend.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"

namespace tilegrad::raster {

// What a forward hands its backward: the identity of the parameters it rendered (checked by backward) and the
// backend's saved state.
struct Context {
  Device device = Device::Cpu;
  std::size_t count = 0;
  const float* means = nullptr;
  std::uint64_t version = 0;
  int stored_degree = 0;
  bool uses_colors = false;
  int width = 0, height = 0;
  bool depth = false;  // the forward rendered depth (a dL/ddepth is accepted)
  std::unique_ptr<const ForwardState> state;
};

struct Rasterizer::Impl {
  Device device;
  std::unique_ptr<Backend> backend;
  bool timing = false;
  StageTimes times;
  explicit Impl(Device d) : device(d) {}
};

std::size_t ForwardOutput::instances() const { return context ? context->state->instances : 0; }
std::size_t ForwardOutput::visible_gaussians() const { return context ? context->state->visible : 0; }

Rasterizer::Rasterizer(Device device) : m_impl(std::make_unique<Impl>(device)) {
  require_device(device);
  m_impl->backend = make_backend(device);
}
Rasterizer::~Rasterizer() = default;
Rasterizer::Rasterizer(Rasterizer&&) noexcept = default;
Rasterizer& Rasterizer::operator=(Rasterizer&&) noexcept = default;

Device Rasterizer::device() const { return m_impl->device; }
void Rasterizer::set_timing(bool on) { m_impl->timing = on; }
const StageTimes& Rasterizer::last_times() const { return m_impl->times; }
std::size_t Rasterizer::workspace_bytes() const { return m_impl->backend->workspace_bytes(); }

namespace {

void check_settings(const RasterSettings& s, int stored_degree) {
  for (float b : s.background) TG_CHECK_ARG(std::isfinite(b), "settings.background must be finite");
  TG_CHECK_ARG(s.sh_degree <= stored_degree, "settings.sh_degree ", s.sh_degree, " exceeds the stored degree ",
               stored_degree);
  TG_CHECK_ARG(s.blur >= 0 && std::isfinite(s.blur), "settings.blur must be >= 0");
  TG_CHECK_ARG(s.binning == Binning::TwoPassCub || s.binning == Binning::ThrustKeys, "settings.binning ",
               static_cast<int>(s.binning), " is not a Binning");
  const Thresholds& t = s.thresholds;
  TG_CHECK_ARG(t.min_alpha >= 0 && t.max_alpha <= 1 && t.min_alpha < t.max_alpha && t.min_transmittance >= 0 &&
                   t.min_transmittance < 1 && t.extent_sigmas > 0,
               "settings.thresholds out of range (need 0 <= min_alpha < max_alpha <= 1, 0 <= min_transmittance "
               "< 1, extent_sigmas > 0)");
}

const float* data_or_null(View<const float> v) { return v.empty() ? nullptr : v.data(); }

}  // namespace

ForwardOutput Rasterizer::forward(const GaussiansView& g, const Camera& camera, const RasterSettings& settings) {
  validate(g);
  validate(camera);
  check_settings(settings, g.sh_degree);
  TG_CHECK_ARG(g.device == device(), "forward: the Gaussians are on ", to_string(g.device), " but the rasterizer is on ",
               to_string(device()));
  auto ctx = std::make_shared<Context>();
  ctx->device = device();
  ctx->count = g.count;
  ctx->means = g.means.data();
  ctx->version = g.version;
  ctx->stored_degree = g.sh_degree;
  ctx->uses_colors = !g.colors.empty();
  ctx->width = camera.width;
  ctx->height = camera.height;
  ctx->depth = settings.render_depth;
  ForwardOutput out;
  m_impl->times = {};
  const memory::StageScope stage("rasterizer forward");
  ctx->state = m_impl->backend->forward(g, make_projection_camera(camera), settings, out,
                                        m_impl->timing ? &m_impl->times : nullptr);
  out.context = std::move(ctx);
  return out;
}

Gradients Rasterizer::backward(const ForwardOutput& fwd, const GaussiansView& g, View<const float> d_image,
                               View<const float> d_alpha, View<const float> d_depth,
                               const BackwardSettings& settings) {
  TG_CHECK_ARG(fwd.context != nullptr, "backward: the forward output has no context (default-constructed?)");
  const Context& ctx = *fwd.context;
  TG_CHECK_ARG(ctx.device == device(), "backward: the forward ran on ", to_string(ctx.device),
               " but this rasterizer is on ", to_string(device()));
  validate(g);
  TG_CHECK_ARG(g.count == ctx.count && g.means.data() == ctx.means && g.sh_degree == ctx.stored_degree &&
                   g.colors.empty() != ctx.uses_colors,
               "backward: these are not the Gaussians the forward rendered (count, buffers or SH degree differ)");
  TG_CHECK_ARG(g.version == ctx.version, "backward: the Gaussians changed since the forward (version ", ctx.version,
               " -> ", g.version, "); run the forward again");
  const std::size_t pixels = std::size_t(ctx.width) * ctx.height;
  check_view(d_image, pixels * 3, device(), "dL/dimage [H, W, 3]");
  if (!d_alpha.empty()) check_view(d_alpha, pixels, device(), "dL/dalpha [H, W]");
  if (!d_depth.empty()) {
    TG_CHECK_ARG(ctx.depth, "backward: dL/ddepth given, but the forward did not render depth "
                            "(RasterSettings::render_depth)");
    check_view(d_depth, pixels, device(), "dL/ddepth [H, W]");
  }
  const memory::StageScope stage("rasterizer backward");
  Gradients grads = m_impl->backend->backward(g, *ctx.state,
                                              {d_image.data(), data_or_null(d_alpha), data_or_null(d_depth)}, settings,
                                              m_impl->timing ? &m_impl->times : nullptr);
  // The loss gradients' finiteness: the CPU backend checked before its work; the CUDA backend checked beside it, and
  // its answer is read now that the work is queued, so the device never waited for the host. Refused input gets the
  // error, and its gradients are dropped.
  if (settings.check_finite)
    for (int k = 0; k < int(std::size(kCheckedViewNames)); ++k)
      TG_CHECK_ARG(!m_impl->backend->nonfinite_in(k), "backward: ", kCheckedViewNames[k],
                   " contains NaN or infinite values");
  return grads;
}

}  // namespace tilegrad::raster
