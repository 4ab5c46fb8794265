// Rasterizer API: validation, the identity checks between forward and backward, dispatch to the backends.
#include "tilegrad/rasterizer/rasterizer.h"

#include <cmath>

#include "context.h"
#include "tilegrad/ad/accumulate.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#if TILEGRAD_WITH_CUDA
#include "cuda/backend.h"
#endif

namespace tilegrad::raster {

struct Rasterizer::Impl {
  Device device;
  Workspace workspace;
  Accumulator accumulator;
  bool timing = false;
  StageTimes times;
  explicit Impl(Device d) : device(d), workspace(d), accumulator(d) {}
};

std::size_t ForwardOutput::instances() const { return context ? context->instances : 0; }
std::size_t ForwardOutput::visible_gaussians() const { return context ? context->visible : 0; }

Rasterizer::Rasterizer(Device device) : m_impl(std::make_unique<Impl>(device)) { require_device(device); }
Rasterizer::~Rasterizer() = default;
Rasterizer::Rasterizer(Rasterizer&&) noexcept = default;
Rasterizer& Rasterizer::operator=(Rasterizer&&) noexcept = default;

Device Rasterizer::device() const { return m_impl->device; }
void Rasterizer::set_timing(bool on) { m_impl->timing = on; }
const StageTimes& Rasterizer::last_times() const { return m_impl->times; }
std::size_t Rasterizer::workspace_bytes() const { return m_impl->workspace.bytes(); }

namespace {

cpu::Params<float> cpu_params(const GaussiansView& g) {
  cpu::Params<float> p;
  p.count = g.count;
  p.stored_degree = g.sh_degree;
  p.means = g.means.data();
  p.log_scales = g.log_scales.data();
  p.quats = g.quats.data();
  p.opacity_logits = g.opacity_logits.data();
  p.sh = g.colors.empty() ? g.sh.data() : nullptr;
  p.colors = g.colors.empty() ? nullptr : g.colors.data();
  return p;
}

void check_settings(const RasterSettings& s, int stored_degree) {
  for (float b : s.background) TG_CHECK_ARG(std::isfinite(b), "settings.background must be finite");
  TG_CHECK_ARG(s.sh_degree <= stored_degree, "settings.sh_degree ", s.sh_degree, " exceeds the stored degree ",
               stored_degree);
  TG_CHECK_ARG(s.blur >= 0 && std::isfinite(s.blur), "settings.blur must be >= 0");
  const Thresholds& t = s.thresholds;
  TG_CHECK_ARG(t.min_alpha >= 0 && t.max_alpha <= 1 && t.min_alpha < t.max_alpha && t.min_transmittance >= 0 &&
                   t.min_transmittance < 1 && t.extent_sigmas > 0,
               "settings.thresholds out of range (need 0 <= min_alpha < max_alpha <= 1, 0 <= min_transmittance "
               "< 1, extent_sigmas > 0)");
}

template <class T>
Buffer<float> host_buffer(const std::vector<T>& v) {
  return Buffer<float>::from(v.data(), v.size(), Device::Cpu);
}

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
  const ProjectionCamera pcam = make_projection_camera(camera);
  ForwardOutput out;
  if (device() == Device::Cpu) {
    ctx->cpu_state = std::make_unique<cpu::State<float>>();
    cpu::forward(cpu_params(g), pcam, settings, *ctx->cpu_state);
    const cpu::State<float>& s = *ctx->cpu_state;
    out.image = host_buffer(s.image);
    out.alpha = host_buffer(s.alpha);
    if (settings.render_depth) out.depth = host_buffer(s.depth);
    ctx->instances = s.sorted_slots.size();
    ctx->visible = s.visible;
    m_impl->times = {};
  } else {
#if TILEGRAD_WITH_CUDA
    ctx->cuda_state = std::make_unique<cuda_backend::DeviceState>();
    cuda_backend::DeviceState& s = *ctx->cuda_state;
    s.camera = pcam;
    s.grid = make_tile_grid(camera.width, camera.height);
    s.settings = settings;
    s.active_degree = settings.sh_degree < 0 ? g.sh_degree : settings.sh_degree;
    m_impl->times = {};
    cuda_backend::forward(g, s, out, m_impl->workspace, m_impl->timing ? &m_impl->times : nullptr);
    ctx->instances = s.instances;
    ctx->visible = s.visible;
#endif
  }
  out.context = std::move(ctx);
  return out;
}

Gradients Rasterizer::backward(const ForwardOutput& fwd, const GaussiansView& g, View<const float> dl_dimage,
                               View<const float> dl_dalpha, View<const float> dl_ddepth,
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
  check_view(dl_dimage, pixels * 3, device(), "dL/dimage [H, W, 3]");
  if (!dl_dalpha.empty()) check_view(dl_dalpha, pixels, device(), "dL/dalpha [H, W]");
  if (!dl_ddepth.empty()) {
    TG_CHECK_ARG(ctx.depth, "backward: dL/ddepth given, but the forward did not render depth "
                            "(RasterSettings::render_depth)");
    check_view(dl_ddepth, pixels, device(), "dL/ddepth [H, W]");
  }
  auto finite = [&](View<const float> v, const char* what) {
    if (v.empty()) return;
    bool bad = false;
    if (device() == Device::Cpu) {
      for (std::size_t i = 0; i < v.size() && !bad; ++i) bad = !std::isfinite(v.data()[i]);
    } else {
#if TILEGRAD_WITH_CUDA
      bad = cuda_backend::any_nonfinite(v.data(), v.size(), m_impl->workspace);
#endif
    }
    TG_CHECK_ARG(!bad, "backward: ", what, " contains NaN or infinite values");
  };
  if (settings.check_finite) {
    finite(dl_dimage, "dL/dimage");
    finite(dl_dalpha, "dL/dalpha");
    finite(dl_ddepth, "dL/ddepth");
  }

  Gradients grads;
  if (device() == Device::Cpu) {
    cpu::Grads<float> cg;
    cpu::backward(cpu_params(g), *ctx.cpu_state, dl_dimage.data(), dl_dalpha.empty() ? nullptr : dl_dalpha.data(),
                  dl_ddepth.empty() ? nullptr : dl_ddepth.data(), settings.accumulation, cg);
    grads.means = host_buffer(cg.means);
    grads.log_scales = host_buffer(cg.log_scales);
    grads.quats = host_buffer(cg.quats);
    grads.opacity_logits = host_buffer(cg.opacity_logits);
    grads.sh = host_buffer(cg.sh);
    grads.colors = host_buffer(cg.colors);
    grads.mean2d = host_buffer(cg.mean2d);
    if (settings.absolute_mean2d) grads.mean2d_abs = host_buffer(cg.mean2d_abs);
  } else {
#if TILEGRAD_WITH_CUDA
    cuda_backend::backward(g, *ctx.cuda_state, dl_dimage.data(), dl_dalpha.empty() ? nullptr : dl_dalpha.data(),
                           dl_ddepth.empty() ? nullptr : dl_ddepth.data(), settings, grads,
                           m_impl->accumulator, m_impl->workspace, m_impl->timing ? &m_impl->times : nullptr);
#endif
  }
  return grads;
}

}  // namespace tilegrad::raster
