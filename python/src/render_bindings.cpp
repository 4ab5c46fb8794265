// Python binding of Render: _core.render(...) -> Render with outputs() and backward(...). Argument shapes follow
// gsplat; the Python layer (tilegrad/_rasterization.py) has already made every array float32 and C-contiguous and
// moved viewmats, Ks and backgrounds to the host.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>

#include <memory>
#include <optional>
#include <tuple>

#include "arrays.h"
#include "render.h"
#include "request.h"
#include "tilegrad/core/error.h"

namespace tilegrad::python {
namespace {

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
        RenderRequest q = make_request(means, quats, scales, opacities, colors, sh, viewmats, ks, width, height,
                                       sh_degree, near_plane, far_plane, backgrounds, eps2d, antialiased, render_mode,
                                       thresholds, meta, means2d_out, p->keep_alive);
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
