// Render: forward over the cameras, outputs in the render mode's layout, backward summed over cameras (render.h).
#include "render.h"

#include <map>
#include <mutex>

#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"

namespace tilegrad::python {
namespace {

// One rasterizer per device for the whole process: the CPU's, and one per CUDA device (by its index: a rasterizer's
// workspace lives on the device it was first used on), so repeated calls reuse their workspaces and allocate no
// scratch. At most one per device that the process renders on; calls are serialised. Never destroyed: at exit the
// CUDA runtime may be gone before static destructors run.
std::mutex g_mutex;
raster::Rasterizer& rasterizer(Device device, int cuda_index) {
  static std::map<int, raster::Rasterizer*> instances;  // key: -1 for the CPU, else the CUDA device index
  raster::Rasterizer*& r = instances[device == Device::Cpu ? -1 : cuda_index];
  if (!r) r = new raster::Rasterizer(device);
  return *r;
}

// Copies n floats from src into dst at element offset `at` (same device).
void copy_into(Buffer<float>& dst, std::size_t at, const Buffer<float>& src) {
  if (src.empty()) return;
  memory::copy(dst.data() + at, dst.device(), src.data(), src.device(), src.bytes());
}

// Camera c's part of a per-camera total [C, ...]: with one camera the part is the total (no copy), otherwise it is
// copied into the total's slice c (allocated by the caller).
void place(Buffer<float>& total, std::size_t c, std::size_t cams, Buffer<float>&& part) {
  if (cams == 1) {
    total = std::move(part);
    return;
  }
  copy_into(total, c * part.size(), part);
}

// The first camera's gradient is taken as it is; later ones are added in camera order.
void accumulate(Buffer<float>& total, Buffer<float>&& part, Device device) {
  if (total.empty()) {
    total = std::move(part);
    return;
  }
  for_each(device, part.size(), AddInto{part.data(), total.data()});
}

}  // namespace

raster::GaussiansView Render::view_for(int camera) const {
  const RenderRequest& r = m_request;
  raster::GaussiansView g;
  g.count = r.count;
  g.device = r.device;
  g.means = r.means;
  g.log_scales = log_scales();
  g.quats = r.quats;
  g.opacity_logits = logits();
  const std::size_t c = r.per_camera_colors ? static_cast<std::size_t>(camera) : 0;
  if (!r.colors.empty() || r.sh.empty()) {
    g.sh_degree = 0;
    g.colors = r.per_camera_colors ? r.colors.subview(c * r.count * 3, r.count * 3) : r.colors;
  } else {
    g.sh_degree = r.stored_degree;
    const std::size_t per = r.count * raster::sh_coefficients(r.stored_degree) * 3;
    g.sh = r.per_camera_colors ? r.sh.subview(c * per, per) : r.sh;
  }
  return g;
}

Render::Render(RenderRequest request) : m_request(std::move(request)) {
  const RenderRequest& r = m_request;
  const Device d = r.device;
  const std::size_t n = r.count;
  const std::size_t cams = r.cameras.size();
  TG_CHECK_ARG(r.backgrounds.size() == cams, "one background per camera expected");
  m_parameters = Buffer<float>(n * 4, d);  // one allocation: log-scales [N, 3], then logits [N]
  for_each(d, n, ToParameters{r.scales.data(), r.opacities.data(), m_parameters.data(), m_parameters.data() + n * 3});

  const std::size_t pixels = std::size_t(width()) * height();
  const int x = r.layout.channels();
  // The outputs are allocated after the first camera's forward, whose projection waits for the device (it reads
  // back the instance count): from then on the device is busy and the allocation calls cost no device time.
  auto allocate_outputs = [&] {
    colors = Buffer<float>(cams * pixels * x, d);
    alphas = Buffer<float>(cams * pixels, d);
    if (r.meta) {
      if (!r.means2d_out) means2d = Buffer<float>(cams * n * 2, d);
      depths = Buffer<float>(cams * n, d);
      conics = Buffer<float>(cams * n * 3, d);
      opacities = Buffer<float>(cams * n, d);
      radii = Buffer<std::int32_t>(cams * n * 2, d);
    }
  };
  if (cams == 0) allocate_outputs();
  raster::RasterSettings settings;
  settings.sh_degree = r.sh_degree;
  settings.antialiased = r.antialiased;
  settings.blur = r.blur;
  settings.render_depth = r.layout.depth != DepthOutput::None;
  settings.thresholds = r.thresholds;

  std::lock_guard<std::mutex> lock(g_mutex);
  m_cuda_index = d == Device::Cuda ? cuda::current_device() : -1;
  m_rasterizer = &rasterizer(d, m_cuda_index);
  raster::Rasterizer& rast = *m_rasterizer;
  m_outputs.reserve(cams);
  for (std::size_t c = 0; c < cams; ++c) {
    for (int k = 0; k < 3; ++k) settings.background[k] = r.backgrounds[c][k];
    m_outputs.push_back(rast.forward(view_for(static_cast<int>(c)), r.cameras[c], settings));
    if (c == 0) allocate_outputs();
    const raster::ForwardOutput& out = m_outputs.back();
    instances += out.instances();
    for_each(d, pixels,
             ComposePixels{r.layout, out.image.data(), out.alpha.data(), out.depth.empty() ? nullptr : out.depth.data(),
                           colors.data() + c * pixels * x, alphas.data() + c * pixels});
    if (r.meta) {
      ProjectMeta m{raster::make_projection_camera(r.cameras[c]),
                    raster::make_tile_grid(r.cameras[c].width, r.cameras[c].height),
                    r.blur,
                    r.antialiased,
                    r.thresholds.min_alpha,
                    r.thresholds.extent_sigmas,
                    r.means.data(),
                    log_scales().data(),
                    r.quats.data(),
                    logits().data(),
                    (r.means2d_out ? r.means2d_out : means2d.data()) + c * n * 2,
                    depths.data() + c * n,
                    conics.data() + c * n * 3,
                    opacities.data() + c * n,
                    radii.data() + c * n * 2};
      for_each(d, n, m);
    }
  }
}

RenderGradients Render::backward(View<const float> v_colors, View<const float> v_alphas, bool absgrad,
                                 Accumulation accumulation, bool check_finite, bool background_gradients) {
  const RenderRequest& r = m_request;
  const Device d = r.device;
  const std::size_t n = r.count;
  const std::size_t cams = r.cameras.size();
  const std::size_t pixels = std::size_t(width()) * height();
  const int x = r.layout.channels();
  if (d == Device::Cuda) {
    const int current = cuda::current_device();
    TG_CHECK_ARG(current == m_cuda_index, "backward: the forward rendered on cuda:", m_cuda_index,
                 " but the current CUDA device is cuda:", current, " (select cuda:", m_cuda_index, ")");
  }
  check_view(v_colors, cams * pixels * x, d, "v_colors [C, H, W, channels]");
  if (!v_alphas.empty()) check_view(v_alphas, cams * pixels, d, "v_alphas [C, H, W, 1]");

  RenderGradients grads;
  // Per-camera totals are allocated for several cameras; one camera's gradients are handed out as they are (place).
  const bool stacked = cams != 1;
  if (stacked) grads.means2d = Buffer<float>(cams * n * 2, d);
  if (absgrad && stacked) grads.means2d_abs = Buffer<float>(cams * n * 2, d);
  const std::size_t color_size = r.colors.empty() ? r.sh.size() : r.colors.size();
  Buffer<float>& color_total = r.colors.empty() ? grads.sh : grads.colors;
  if (r.per_camera_colors && stacked) color_total = Buffer<float>(color_size, d);
  if (background_gradients) grads.backgrounds.assign(cams * 3, 0.0f);

  raster::BackwardSettings settings;
  settings.accumulation = accumulation;
  settings.absolute_mean2d = absgrad;
  settings.check_finite = check_finite;
  const bool expected_depth = r.layout.depth == DepthOutput::Expected;
  // RGB: the output gradients are the rasterizer's dL/dimage and dL/dalpha as they are (no per-pixel pass).
  const bool direct = r.layout.rgb && r.layout.depth == DepthOutput::None;
  Buffer<float> d_image(direct ? 0 : pixels * 3, d);
  Buffer<float> d_depth(r.layout.depth != DepthOutput::None ? pixels : 0, d);
  Buffer<float> d_alpha(!direct && (!v_alphas.empty() || expected_depth) ? pixels : 0, d);

  std::lock_guard<std::mutex> lock(g_mutex);
  raster::Rasterizer& rast = *m_rasterizer;  // the forward's: its device holds the forward's state
  for (std::size_t c = 0; c < cams; ++c) {
    const raster::ForwardOutput& out = m_outputs[c];
    View<const float> image_grad = d_image.view(), alpha_grad = d_alpha.view();
    if (direct) {
      image_grad = v_colors.subview(c * pixels * 3, pixels * 3);
      if (!v_alphas.empty()) alpha_grad = v_alphas.subview(c * pixels, pixels);
    } else {
      for_each(d, pixels,
               SplitPixelGradients{r.layout, v_colors.data() + c * pixels * x,
                                   v_alphas.empty() ? nullptr : v_alphas.data() + c * pixels, out.alpha.data(),
                                   out.depth.empty() ? nullptr : out.depth.data(), d_image.data(),
                                   d_depth.empty() ? nullptr : d_depth.data(),
                                   d_alpha.empty() ? nullptr : d_alpha.data()});
    }
    raster::Gradients g = rast.backward(out, view_for(static_cast<int>(c)), image_grad, alpha_grad,
                                        d_depth.view(), settings);
    accumulate(grads.means, std::move(g.means), d);
    accumulate(grads.scales, std::move(g.log_scales), d);
    accumulate(grads.quats, std::move(g.quats), d);
    accumulate(grads.opacities, std::move(g.opacity_logits), d);
    Buffer<float>& part = r.colors.empty() ? g.sh : g.colors;
    if (r.per_camera_colors) {
      place(color_total, c, cams, std::move(part));
    } else {
      accumulate(color_total, std::move(part), d);
    }
    place(grads.means2d, c, cams, std::move(g.mean2d));
    if (absgrad) place(grads.means2d_abs, c, cams, std::move(g.mean2d_abs));
    if (background_gradients && r.layout.rgb) {
      // dL/dbackground = sum over pixels of dL/dcolour (1 - alpha), summed in double on the host.
      const std::vector<float> d_rgb = to_vector(v_colors.subview(c * pixels * x, pixels * x));
      const std::vector<float> alpha = out.alpha.to_vector();
      double sum[3] = {0, 0, 0};
      for (std::size_t p = 0; p < pixels; ++p)
        for (int k = 0; k < 3; ++k) sum[k] += double(d_rgb[p * x + k]) * (1.0 - double(alpha[p]));
      for (int k = 0; k < 3; ++k) grads.backgrounds[c * 3 + k] = static_cast<float>(sum[k]);
    }
  }
  if (cams == 0) {  // no camera: zero gradients of the right sizes
    grads.means = Buffer<float>::zeros(n * 3, d);
    grads.scales = Buffer<float>::zeros(n * 3, d);
    grads.quats = Buffer<float>::zeros(n * 4, d);
    grads.opacities = Buffer<float>::zeros(n, d);
    color_total = Buffer<float>::zeros(color_size, d);
  }
  for_each(d, n, ToActivationGradients{r.scales.data(), r.opacities.data(), grads.scales.data(), grads.opacities.data()});
  return grads;
}

}  // namespace tilegrad::python
