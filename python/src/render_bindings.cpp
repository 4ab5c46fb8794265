// Python binding of Render: _core.render(...) -> Render with outputs() and backward(...). Argument shapes follow
// gsplat; the Python layer (tilegrad/_rasterization.py) has already made every array float32 and C-contiguous and
// moved viewmats, Ks and backgrounds to the host.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>

#include <cmath>
#include <memory>
#include <optional>
#include <tuple>

#include "arrays.h"
#include "render.h"
#include "tilegrad/core/error.h"

namespace tilegrad::python {
namespace {

PixelLayout parse_mode(const std::string& mode) {
  if (mode == "RGB") return {true, DepthOutput::None};
  if (mode == "D") return {false, DepthOutput::Accumulated};
  if (mode == "ED") return {false, DepthOutput::Expected};
  if (mode == "RGB+D") return {true, DepthOutput::Accumulated};
  if (mode == "RGB+ED") return {true, DepthOutput::Expected};
  throw InvalidArgument("render_mode must be one of RGB, D, ED, RGB+D, RGB+ED, got '" + mode + "'");
}

// gsplat's camera arrays -> the library's cameras: viewmat = [R t; 0 0 0 1] world-to-camera (OpenCV axes),
// K = [fx 0 cx; 0 fy cy; 0 0 1] in pixels.
std::vector<raster::Camera> make_cameras(const Array& viewmats, const Array& ks, int width, int height, float near,
                                         float far) {
  const View<const float> v = float_view(viewmats, "viewmats", Device::Cpu, {-1, 4, 4});
  const std::size_t cams = viewmats.shape(0);
  const View<const float> k = float_view(ks, "Ks", Device::Cpu, {static_cast<long>(cams), 3, 3});
  TG_CHECK_ARG(width >= 0 && height >= 0, "width and height must be >= 0, got ", width, "x", height);
  std::vector<raster::Camera> out(cams);
  for (std::size_t c = 0; c < cams; ++c) {
    const float* m = v.data() + c * 16;
    const float* kk = k.data() + c * 9;
    TG_CHECK_ARG(m[12] == 0 && m[13] == 0 && m[14] == 0 && m[15] == 1, "viewmats[", c,
                 "]: the last row must be [0, 0, 0, 1] (a rigid world-to-camera transform)");
    TG_CHECK_ARG(kk[1] == 0 && kk[3] == 0 && kk[6] == 0 && kk[7] == 0 && kk[8] == 1, "Ks[", c,
                 "] must be [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] (no skew)");
    raster::Camera& cam = out[c];
    cam.fx = kk[0];
    cam.fy = kk[4];
    cam.cx = kk[2];
    cam.cy = kk[5];
    cam.width = width;
    cam.height = height;
    for (int r = 0; r < 3; ++r) {
      for (int col = 0; col < 3; ++col) cam.rotation(r, col) = m[4 * r + col];
      cam.translation[r] = m[4 * r + 3];
    }
    cam.near_plane = near;
    cam.far_plane = far;
    try {
      raster::validate(cam);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(detail::concat("viewmats[", c, "] / Ks[", c, "]: ", e.what()));
    }
  }
  return out;
}

// The Python object: the Render and the arrays its views point into.
struct PyRender {
  std::unique_ptr<Render> render;
  std::vector<Array> keep_alive;
  bool outputs_taken = false;
};

nb::dict gradients_dict(RenderGradients&& g, const Render& r, bool absgrad) {
  const RenderRequest& q = r.request();
  const std::size_t n = q.count, cams = static_cast<std::size_t>(r.cameras());
  nb::dict d;
  d["means"] = to_array(std::move(g.means), {n, 3});
  d["scales"] = to_array(std::move(g.scales), {n, 3});
  d["quats"] = to_array(std::move(g.quats), {n, 4});
  d["opacities"] = to_array(std::move(g.opacities), {n});
  if (!q.colors.empty() || q.sh.empty()) {
    d["colors"] = q.per_camera_colors ? to_array(std::move(g.colors), {cams, n, 3}) : to_array(std::move(g.colors), {n, 3});
  } else {
    const std::size_t k = static_cast<std::size_t>(raster::sh_coefficients(q.stored_degree));
    d["colors"] = q.per_camera_colors ? to_array(std::move(g.sh), {cams, n, k, 3}) : to_array(std::move(g.sh), {n, k, 3});
  }
  d["means2d"] = to_array(std::move(g.means2d), {cams, n, 2});
  if (absgrad) d["means2d_abs"] = to_array(std::move(g.means2d_abs), {cams, n, 2});
  if (!g.backgrounds.empty()) {
    d["backgrounds"] = to_array(Buffer<float>::from(g.backgrounds, q.device), {cams, 3});
  }
  return d;
}

}  // namespace

void bind_render(nb::module_& m) {
  nb::class_<PyRender>(m, "Render", "One rasterization call: its outputs and its backward (tilegrad.rasterization)")
      .def_prop_ro("cameras", [](const PyRender& p) { return p.render->cameras(); })
      .def_prop_ro("width", [](const PyRender& p) { return p.render->width(); })
      .def_prop_ro("height", [](const PyRender& p) { return p.render->height(); })
      .def_prop_ro("channels", [](const PyRender& p) { return p.render->request().layout.channels(); })
      .def_prop_ro("count", [](const PyRender& p) { return p.render->request().count; })
      .def_prop_ro("instances", [](const PyRender& p) { return p.render->instances; },
                   "(Gaussian, tile) pairs rendered over all cameras")
      .def_prop_ro("device", [](const PyRender& p) { return std::string(to_string(p.render->request().device)); })
      .def(
          "outputs",
          [](PyRender& p) {
            TG_CHECK_ARG(!p.outputs_taken, "Render.outputs() was already called");
            p.outputs_taken = true;
            Render& r = *p.render;
            const std::size_t c = static_cast<std::size_t>(r.cameras()), h = static_cast<std::size_t>(r.height()),
                              w = static_cast<std::size_t>(r.width()), n = r.request().count;
            nb::dict meta;
            if (r.request().meta) {
              if (!r.request().means2d_out) meta["means2d"] = to_array(std::move(r.means2d), {c, n, 2});
              meta["depths"] = to_array(std::move(r.depths), {c, n});
              meta["conics"] = to_array(std::move(r.conics), {c, n, 3});
              meta["opacities"] = to_array(std::move(r.opacities), {c, n});
              meta["radii"] = to_array(std::move(r.radii), {c, n, 2});
            }
            const std::size_t x = static_cast<std::size_t>(r.request().layout.channels());
            return std::make_tuple(to_array(std::move(r.colors), {c, h, w, x}), to_array(std::move(r.alphas), {c, h, w, 1}),
                                   meta);
          },
          "(colors [C, H, W, X], alphas [C, H, W, 1], projection summary dict); once per Render")
      .def(
          "backward",
          [](PyRender& p, const Array& v_colors, std::optional<Array> v_alphas, bool absgrad,
             const std::string& accumulation, bool check_finite, bool background_gradients) {
            Render& r = *p.render;
            const Device d = r.request().device;
            const long c = r.cameras(), h = r.height(), w = r.width(), x = r.request().layout.channels();
            const View<const float> vc = float_view(v_colors, "v_colors", d, {c, h, w, x});
            View<const float> va;
            if (v_alphas) va = float_view(*v_alphas, "v_alphas", d, {c, h, w, 1});
            const Accumulation acc = parse_accumulation(accumulation);
            RenderGradients g;
            {
              nb::gil_scoped_release release;
              g = r.backward(vc, va, absgrad, acc, check_finite, background_gradients);
            }
            return gradients_dict(std::move(g), r, absgrad);
          },
          nb::arg("v_colors"), nb::arg("v_alphas").none(), nb::arg("absgrad") = false,
          nb::arg("accumulation") = "owned", nb::arg("check_finite") = true, nb::arg("backgrounds") = false,
          "Gradients (dict of arrays, gsplat's argument names) given dL/dcolors and optionally dL/dalphas");

  m.def(
      "render",
      [](const Array& means, const Array& quats, const Array& scales, const Array& opacities,
         std::optional<Array> colors, std::optional<Array> sh, const Array& viewmats, const Array& ks, int width,
         int height, std::optional<int> sh_degree, float near_plane, float far_plane, std::optional<Array> backgrounds,
         float eps2d, bool antialiased, const std::string& render_mode,
         std::tuple<float, float, float, float> thresholds, bool meta, std::optional<nb::ndarray<>> means2d_out) {
        auto p = std::make_unique<PyRender>();
        RenderRequest q;
        q.device = device_of(means, "means");
        TG_CHECK_ARG(means.ndim() == 2, "means must have shape [N, 3] (no batch dimensions), got ", means.ndim(),
                     " dimensions");
        const long n = static_cast<long>(means.shape(0));
        q.count = static_cast<std::size_t>(n);
        q.means = float_view(means, "means", q.device, {n, 3});
        q.quats = float_view(quats, "quats", q.device, {n, 4});
        q.scales = float_view(scales, "scales", q.device, {n, 3});
        q.opacities = float_view(opacities, "opacities", q.device, {n});
        q.width = width;
        q.height = height;
        q.cameras = make_cameras(viewmats, ks, width, height, near_plane, far_plane);
        const long cams = static_cast<long>(q.cameras.size());
        TG_CHECK_ARG(colors.has_value() != sh.has_value(), "give exactly one of colors and sh");
        if (colors) {
          q.per_camera_colors = colors->ndim() == 3;
          q.colors = q.per_camera_colors ? float_view(*colors, "colors", q.device, {cams, n, 3})
                                         : float_view(*colors, "colors", q.device, {n, 3});
          p->keep_alive.push_back(*colors);
        } else {
          q.per_camera_colors = sh->ndim() == 4;
          const std::size_t k = q.per_camera_colors ? sh->shape(2) : (sh->ndim() == 3 ? sh->shape(1) : 0);
          q.stored_degree = -1;
          for (int deg = 0; deg <= raster::kMaxShDegree; ++deg)
            if (std::size_t(raster::sh_coefficients(deg)) == k) q.stored_degree = deg;
          TG_CHECK_ARG(q.stored_degree >= 0, "SH colors must have shape [N, K, 3] or [C, N, K, 3] with K = 1, 4, 9 or 16 "
                       "((degree + 1)^2, whole bands up to degree 3), got K = ", k);
          const long kk = static_cast<long>(k);
          q.sh = q.per_camera_colors ? float_view(*sh, "colors", q.device, {cams, n, kk, 3})
                                     : float_view(*sh, "colors", q.device, {n, kk, 3});
          q.sh_degree = sh_degree.value_or(q.stored_degree);
          TG_CHECK_ARG(q.sh_degree >= 0 && q.sh_degree <= q.stored_degree, "sh_degree ", q.sh_degree,
                       " needs (sh_degree + 1)^2 <= K = ", k, " coefficients");
          p->keep_alive.push_back(*sh);
        }
        q.backgrounds.assign(q.cameras.size(), {0.0f, 0.0f, 0.0f});
        if (backgrounds) {
          const View<const float> b = float_view(*backgrounds, "backgrounds", Device::Cpu, {cams, 3});
          for (std::size_t c = 0; c < q.cameras.size(); ++c)
            for (int k = 0; k < 3; ++k) q.backgrounds[c][k] = b.data()[3 * c + k];
        }
        q.layout = parse_mode(render_mode);
        TG_CHECK_ARG(eps2d >= 0 && std::isfinite(eps2d), "eps2d must be >= 0, got ", eps2d);
        q.blur = eps2d;
        q.antialiased = antialiased;
        q.thresholds = {std::get<0>(thresholds), std::get<1>(thresholds), std::get<2>(thresholds),
                        std::get<3>(thresholds)};
        q.meta = meta;
        if (means2d_out) {
          TG_CHECK_ARG(meta, "means2d_out needs meta=True");
          // Written by the projection summary: a mutable array of the caller (imported writable).
          const Array target(*means2d_out);
          q.means2d_out = const_cast<float*>(
              float_view(target, "means2d_out", q.device, {cams, n, 2}).data());
          p->keep_alive.push_back(target);
        }
        p->keep_alive.insert(p->keep_alive.end(), {means, quats, scales, opacities});
        {
          nb::gil_scoped_release release;
          p->render = std::make_unique<Render>(std::move(q));
        }
        return p;
      },
      nb::arg("means"), nb::arg("quats"), nb::arg("scales"), nb::arg("opacities"), nb::arg("colors").none(),
      nb::arg("sh").none(), nb::arg("viewmats"), nb::arg("Ks"), nb::arg("width"), nb::arg("height"),
      nb::arg("sh_degree").none(), nb::arg("near_plane"), nb::arg("far_plane"), nb::arg("backgrounds").none(),
      nb::arg("eps2d"), nb::arg("antialiased"), nb::arg("render_mode"), nb::arg("thresholds"), nb::arg("meta"),
      nb::arg("means2d_out").none() = nb::none(),
      "Forward of tilegrad.rasterization on prepared arrays (see tilegrad/_rasterization.py)");

  m.def("synchronize", [](const std::string& device) { synchronize(parse_device(device)); },
        "Waits for the queued work of a device ('cpu' or 'cuda')");
  m.def("cuda_available", &cuda_available);
  m.def("cuda_compiled", &cuda_compiled);
  m.def("cuda_device", &cuda_device_description);
}

}  // namespace tilegrad::python
