// The baselines of the binding's call overhead (python/examples/measure_overhead.py), timed in C++ with no Python
// between the calls, one camera, forward + backward per iteration:
//   _core.time_library_iterations / time_library_phases: the library's Rasterizer called directly on its own
//     parameters (log-scales, logits);
//   _core.time_binding_phases: the binding's C++ half of tilegrad.rasterization (make_request + Render, then
//     Render::backward) on gsplat's parameters, i.e. everything a Python call does except Python: its extra kernels
//     (activations, output layout, meta summary, activation gradients), allocations and checks.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "arrays.h"
#include "render.h"
#include "request.h"
#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::python {
namespace {

// Milliseconds per timed iteration: from its start to the forward call's return, from there to the backward call's
// return, from there to the end of the device synchronisation, and the whole iteration.
struct Phases {
  std::vector<double> forward, backward, sync, total;
};

// Runs `warmup` untimed and `reps` timed iterations of backward(forward()), synchronising `device` at the end of each.
// What the calls return is destroyed after the clock stops, as a training step's buffers would be reused. isolated:
// the device is also synchronised (untimed) between the two calls, so that each call's time is its host time on an
// idle device (plus the waits of its own device work that it contains).
template <class Forward, class Backward>
Phases time_phases(Device device, int warmup, int reps, bool isolated, Forward&& forward, Backward&& backward) {
  TG_CHECK_ARG(warmup >= 0 && reps >= 0, "warmup and reps must be >= 0");
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  Phases p;
  for (int i = 0; i < warmup + reps; ++i) {
    const auto t0 = Clock::now();
    const auto out = forward();
    const auto t1 = Clock::now();
    auto t1b = t1;  // the backward's start: after the untimed synchronisation when isolated
    if (isolated) {
      synchronize(device);
      t1b = Clock::now();
    }
    const auto grads = backward(out);
    const auto t2 = Clock::now();
    synchronize(device);
    const auto t3 = Clock::now();
    if (i < warmup) continue;
    p.forward.push_back(ms(t0, t1));
    p.backward.push_back(ms(t1b, t2));
    p.sync.push_back(ms(t2, t3));
    p.total.push_back(isolated ? ms(t0, t1) + ms(t1b, t3) : ms(t0, t3));
  }
  return p;
}

nb::dict to_dict(Phases&& p) {
  nb::dict d;
  d["forward"] = std::move(p.forward);
  d["backward"] = std::move(p.backward);
  d["sync"] = std::move(p.sync);
  d["total"] = std::move(p.total);
  return d;
}

// The library's Rasterizer on one camera (forward, then backward of dL/dimage = v_colors).
Phases library_phases(const Array& means, const Array& quats, const Array& log_scales, const Array& logits,
                      const Array& sh, const Array& viewmat, const Array& k, int width, int height, int sh_degree,
                      const Array& v_colors, std::vector<float> background, const std::string& accumulation,
                      int warmup, int reps, bool isolated) {
  const Device d = device_of(means, "means");
  const long n = static_cast<long>(means.shape(0));
  TG_CHECK_ARG(sh.ndim() == 3, "sh must be [N, K, 3]");
  const long kk = static_cast<long>(sh.shape(1));
  raster::GaussiansView g;
  g.count = static_cast<std::size_t>(n);
  g.device = d;
  g.means = float_view(means, "means", d, {n, 3});
  g.quats = float_view(quats, "quats", d, {n, 4});
  g.log_scales = float_view(log_scales, "log_scales", d, {n, 3});
  g.opacity_logits = float_view(logits, "logits", d, {n});
  g.sh = float_view(sh, "sh", d, {n, kk, 3});
  g.sh_degree = -1;
  for (int deg = 0; deg <= raster::kMaxShDegree; ++deg)
    if (raster::sh_coefficients(deg) == kk) g.sh_degree = deg;
  TG_CHECK_ARG(g.sh_degree >= 0, "sh must have K = 1, 4, 9 or 16");
  const View<const float> m = float_view(viewmat, "viewmat", Device::Cpu, {4, 4});
  const View<const float> kv = float_view(k, "K", Device::Cpu, {3, 3});
  raster::Camera cam;
  cam.fx = kv.data()[0];
  cam.fy = kv.data()[4];
  cam.cx = kv.data()[2];
  cam.cy = kv.data()[5];
  cam.width = width;
  cam.height = height;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) cam.rotation(r, c) = m.data()[4 * r + c];
    cam.translation[r] = m.data()[4 * r + 3];
  }
  const View<const float> dl = float_view(v_colors, "v_colors", d, {height, width, 3});
  TG_CHECK_ARG(background.size() == 3, "background must have 3 components");
  raster::RasterSettings settings;
  settings.sh_degree = sh_degree;
  std::copy(background.begin(), background.end(), settings.background);
  raster::BackwardSettings backward;
  backward.accumulation = parse_accumulation(accumulation);

  nb::gil_scoped_release release;
  raster::Rasterizer rasterizer(d);
  return time_phases(
      d, warmup, reps, isolated, [&] { return rasterizer.forward(g, cam, settings); },
      [&](const raster::ForwardOutput& out) { return rasterizer.backward(out, g, dl, {}, {}, backward); });
}

std::vector<double> time_library_iterations(const Array& means, const Array& quats, const Array& log_scales,
                                            const Array& logits, const Array& sh, const Array& viewmat,
                                            const Array& k, int width, int height, int sh_degree,
                                            const Array& v_colors, std::vector<float> background,
                                            const std::string& accumulation, int warmup, int reps) {
  return library_phases(means, quats, log_scales, logits, sh, viewmat, k, width, height, sh_degree, v_colors,
                        std::move(background), accumulation, warmup, reps, false)
      .total;
}

// The binding's C++ path of one tilegrad.rasterization call and its backward (RGB, meta, Owned unless given):
// the same make_request and Render as _core.render, on gsplat's activated parameters.
Phases binding_phases(const Array& means, const Array& quats, const Array& scales, const Array& opacities,
                      const Array& sh, const Array& viewmats, const Array& ks, int width, int height, int sh_degree,
                      const Array& v_colors, const Array& backgrounds, const std::string& accumulation,
                      int warmup, int reps, bool isolated) {
  const Accumulation acc = parse_accumulation(accumulation);
  struct Call {
    std::vector<Array> keep_alive;
    std::unique_ptr<Render> render;
  };
  const Device d = device_of(means, "means");
  TG_CHECK_ARG(viewmats.ndim() == 3 && viewmats.shape(0) == 1, "one camera expected (viewmats [1, 4, 4])");
  const View<const float> vc = float_view(v_colors, "v_colors", d, {1, height, width, 3});
  // tilegrad.rasterization's defaults (near and far planes, eps2d, thresholds as Python's floats become float32).
  const auto thresholds = std::make_tuple(static_cast<float>(1.0 / 255.0), 0.99f, 1e-4f, 3.0f);
  // The request reads the arrays' DLPack metadata and creates no Python object; the GIL stays held (one thread).
  auto forward = [&] {
    auto call = std::make_shared<Call>();
    RenderRequest q = make_request(means, quats, scales, opacities, std::nullopt, sh, viewmats, ks, width, height,
                                   sh_degree, 0.01f, 1e10f, backgrounds, 0.3f, false, "RGB", thresholds, true,
                                   std::nullopt, call->keep_alive);
    call->render = std::make_unique<Render>(std::move(q));
    return call;
  };
  auto backward = [&](const std::shared_ptr<Call>& call) {
    return call->render->backward(vc, {}, false, acc, true, false);
  };
  return time_phases(d, warmup, reps, isolated, forward, backward);
}

}  // namespace

void bind_benchmark(nb::module_& m) {
  m.def("time_library_iterations", &time_library_iterations, nb::arg("means"), nb::arg("quats"),
        nb::arg("log_scales"), nb::arg("logits"), nb::arg("sh"), nb::arg("viewmat"), nb::arg("K"), nb::arg("width"),
        nb::arg("height"), nb::arg("sh_degree"), nb::arg("v_colors"), nb::arg("background"),
        nb::arg("accumulation") = "owned", nb::arg("warmup") = 10, nb::arg("reps") = 100,
        "Milliseconds per forward + backward iteration of the C++ Rasterizer called directly (one camera)");
  m.def(
      "time_library_phases",
      [](const Array& means, const Array& quats, const Array& log_scales, const Array& logits, const Array& sh,
         const Array& viewmat, const Array& k, int width, int height, int sh_degree, const Array& v_colors,
         std::vector<float> background, const std::string& accumulation, int warmup, int reps, bool isolated) {
        return to_dict(library_phases(means, quats, log_scales, logits, sh, viewmat, k, width, height, sh_degree,
                                      v_colors, std::move(background), accumulation, warmup, reps, isolated));
      },
      nb::arg("means"), nb::arg("quats"), nb::arg("log_scales"), nb::arg("logits"), nb::arg("sh"),
      nb::arg("viewmat"), nb::arg("K"), nb::arg("width"), nb::arg("height"), nb::arg("sh_degree"),
      nb::arg("v_colors"), nb::arg("background"), nb::arg("accumulation") = "owned", nb::arg("warmup") = 10,
      nb::arg("reps") = 100, nb::arg("isolated") = false,
      "time_library_iterations by phase: dict of lists (ms) 'forward' (to the forward call's return), 'backward' "
      "(to the backward call's return), 'sync' (the rest of the device work) and 'total'; isolated=True "
      "synchronises the device between the calls (untimed), so each call is timed on an idle device");
  m.def(
      "time_binding_phases",
      [](const Array& means, const Array& quats, const Array& scales, const Array& opacities, const Array& sh,
         const Array& viewmats, const Array& ks, int width, int height, int sh_degree, const Array& v_colors,
         const Array& backgrounds, const std::string& accumulation, int warmup, int reps, bool isolated) {
        return to_dict(binding_phases(means, quats, scales, opacities, sh, viewmats, ks, width, height, sh_degree,
                                      v_colors, backgrounds, accumulation, warmup, reps, isolated));
      },
      nb::arg("means"), nb::arg("quats"), nb::arg("scales"), nb::arg("opacities"), nb::arg("sh"),
      nb::arg("viewmats"), nb::arg("Ks"), nb::arg("width"), nb::arg("height"), nb::arg("sh_degree"),
      nb::arg("v_colors"), nb::arg("backgrounds"), nb::arg("accumulation") = "owned", nb::arg("warmup") = 10,
      nb::arg("reps") = 100, nb::arg("isolated") = false,
      "The binding's C++ call (make_request + Render forward, Render::backward) per iteration, by phase like "
      "time_library_phases: gsplat's activated scales and opacities, SH [N, K, 3], viewmats [1, 4, 4], Ks "
      "[1, 3, 3], v_colors [1, H, W, 3], backgrounds [1, 3] (host)");
}

}  // namespace tilegrad::python
