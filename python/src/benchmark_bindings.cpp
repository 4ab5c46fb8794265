// _core.time_library_iterations: the library's own forward + backward loop on one camera, timed in C++ with no
// Python between the calls. The baseline of the binding's call overhead (python/examples/measure_overhead.py runs
// the same work through tilegrad.torch.rasterization).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "arrays.h"
#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::python {
namespace {

// Milliseconds of each of `reps` iterations (forward, then backward of dL/dimage = v_colors), after `warmup`
// untimed ones; the device is synchronised at the end of every iteration.
std::vector<double> time_library_iterations(const Array& means, const Array& quats, const Array& log_scales,
                                            const Array& logits, const Array& sh, const Array& viewmat,
                                            const Array& k, int width, int height, int sh_degree,
                                            const Array& v_colors, std::vector<float> background,
                                            const std::string& accumulation, int warmup, int reps) {
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
  std::vector<double> ms;
  for (int i = 0; i < warmup + reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const raster::ForwardOutput out = rasterizer.forward(g, cam, settings);
    const raster::Gradients grads = rasterizer.backward(out, g, dl, {}, {}, backward);
    synchronize(d);
    if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

}  // namespace

void bind_benchmark(nb::module_& m) {
  m.def("time_library_iterations", &time_library_iterations, nb::arg("means"), nb::arg("quats"),
        nb::arg("log_scales"), nb::arg("logits"), nb::arg("sh"), nb::arg("viewmat"), nb::arg("K"), nb::arg("width"),
        nb::arg("height"), nb::arg("sh_degree"), nb::arg("v_colors"), nb::arg("background"),
        nb::arg("accumulation") = "owned", nb::arg("warmup") = 10, nb::arg("reps") = 100,
        "Milliseconds per forward + backward iteration of the C++ Rasterizer called directly (one camera)");
}

}  // namespace tilegrad::python
