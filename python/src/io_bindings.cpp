// Python binding of the file formats: 3DGS .ply scenes and datasets (NeRF-synthetic, transforms.json, COLMAP) as
// cameras in gsplat's conventions plus decoded images. Arrays are NumPy-compatible host arrays.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/ply_gaussians.h"
#include "cmd_dataset_common.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/run.h"

namespace tilegrad::python {
namespace {

template <class T>
OutArray host_array(const std::vector<T>& v, std::vector<std::size_t> shape) {
  return to_array(Buffer<T>::from(v.data(), v.size(), Device::Cpu), std::move(shape));
}

OutArray host_array(const Buffer<float>& b, std::vector<std::size_t> shape) {
  return to_array(b.to(Device::Cpu), std::move(shape));
}

// A camera in gsplat's arrays: viewmat [4, 4] world-to-camera (OpenCV axes), K [3, 3].
nb::dict view_dict(const training::TrainingView& v) {
  const raster::Camera& c = v.camera;
  std::vector<float> viewmat(16, 0.0f), k(9, 0.0f);
  for (int r = 0; r < 3; ++r) {
    for (int col = 0; col < 3; ++col) viewmat[4 * r + col] = c.rotation(r, col);
    viewmat[4 * r + 3] = c.translation[r];
  }
  viewmat[15] = 1.0f;
  k[0] = c.fx;
  k[2] = c.cx;
  k[4] = c.fy;
  k[5] = c.cy;
  k[8] = 1.0f;
  nb::dict d;
  d["name"] = v.name;
  d["image_path"] = v.image_path;
  d["width"] = c.width;
  d["height"] = c.height;
  d["viewmat"] = host_array(viewmat, {4, 4});
  d["K"] = host_array(k, {3, 3});
  if (!v.image.empty()) {
    d["image"] = to_array(v.image.to(Device::Cpu),
                          {static_cast<std::size_t>(c.height), static_cast<std::size_t>(c.width), 4});
  }
  if (!v.valid.empty()) {  // undistortion borders and masks: 0 where a pixel does not count
    d["valid"] = to_array(v.valid.to(Device::Cpu), {static_cast<std::size_t>(c.height), static_cast<std::size_t>(c.width)});
  }
  return d;
}

nb::list views_list(const std::vector<training::TrainingView>& views) {
  nb::list l;
  for (const training::TrainingView& v : views) l.append(view_dict(v));
  return l;
}

}  // namespace

void bind_io(nb::module_& m) {
  m.def(
      "read_ply",
      [](const std::string& path) {
        raster::Gaussians g;
        {
          nb::gil_scoped_release release;
          g = io::read_gaussians_ply(path);
        }
        const std::size_t n = g.count(), k = static_cast<std::size_t>(raster::sh_coefficients(g.sh_degree));
        nb::dict d;
        d["means"] = host_array(g.means, {n, 3});
        d["quats"] = host_array(g.quats, {n, 4});
        d["log_scales"] = host_array(g.log_scales, {n, 3});
        d["opacity_logits"] = host_array(g.opacity_logits, {n});
        d["sh"] = host_array(g.sh, {n, k, 3});
        d["sh_degree"] = g.sh_degree;
        return d;
      },
      nb::arg("path"), "Reads a 3DGS .ply (dict of NumPy-compatible arrays; scales and opacities stored raw)");
  m.def(
      "write_ply",
      [](const std::string& path, const Array& means, const Array& quats, const Array& log_scales,
         const Array& opacity_logits, const Array& sh) {
        TG_CHECK_ARG(means.ndim() == 2, "means must have shape [N, 3]");
        const long n = static_cast<long>(means.shape(0));
        TG_CHECK_ARG(sh.ndim() == 3, "sh must have shape [N, K, 3]");
        const long k = static_cast<long>(sh.shape(1));
        int degree = -1;
        for (int d = 0; d <= raster::kMaxShDegree; ++d)
          if (raster::sh_coefficients(d) == k) degree = d;
        TG_CHECK_ARG(degree >= 0, "sh must have K = 1, 4, 9 or 16 coefficients, got ", k);
        raster::GaussiansView g;
        g.count = static_cast<std::size_t>(n);
        g.sh_degree = degree;
        g.means = float_view(means, "means", Device::Cpu, {n, 3});
        g.quats = float_view(quats, "quats", Device::Cpu, {n, 4});
        g.log_scales = float_view(log_scales, "log_scales", Device::Cpu, {n, 3});
        g.opacity_logits = float_view(opacity_logits, "opacity_logits", Device::Cpu, {n});
        g.sh = float_view(sh, "sh", Device::Cpu, {n, k, 3});
        nb::gil_scoped_release release;
        io::write_gaussians_ply(path, g);
      },
      nb::arg("path"), nb::arg("means"), nb::arg("quats"), nb::arg("log_scales"), nb::arg("opacity_logits"),
      nb::arg("sh"), "Writes a 3DGS .ply from host float32 arrays");
  m.def(
      "load_dataset",
      [](const std::string& path, int downscale, bool eval, int holdout_every, bool images,
         const std::vector<std::string>& capture_args) {
        training::DatasetOptions o;
        // The capture options (image folder, width, undistortion, masks, split, missing images) as the commands
        // read them: the same names, checks and messages.
        {
          CLI::App cmd("tilegrad.load_dataset");
          cli::add_capture_options(&cmd, o);
          std::vector<std::string> args(capture_args.rbegin(), capture_args.rend());
          try {
            cmd.parse(args);
          } catch (const CLI::ParseError& e) {
            throw InvalidArgument(std::string("load_dataset: ") + e.what());
          }
        }
        o.path = path;
        o.downscale = downscale;
        o.eval = eval;
        o.holdout_every = holdout_every;
        o.device = Device::Cpu;
        o.load_train_images = images;
        o.load_test_images = images;
        training::TrainingDataset data;
        {
          nb::gil_scoped_release release;
          data = training::load_dataset(o);
        }
        nb::dict d;
        d["kind"] = std::string(io::to_string(data.kind));
        d["root"] = data.root;
        d["train"] = views_list(data.train);
        d["test"] = views_list(data.test);
        const std::size_t p = data.points.size();
        d["points"] = host_array(data.points.positions, {p, 3});
        d["points_colors"] = data.points.has_colors() ? nb::cast(host_array(data.points.colors, {p, 3})) : nb::none();
        d["points_file"] = data.points_file;
        d["has_alpha"] = data.has_alpha;
        d["center"] = nb::make_tuple(data.center[0], data.center[1], data.center[2]);
        d["extent"] = data.extent;
        nb::list notes;
        for (const std::string& line : training::dataset_notes(data)) notes.append(line);
        d["notes"] = notes;
        return d;
      },
      nb::arg("path"), nb::arg("downscale") = 1, nb::arg("eval") = false, nb::arg("holdout_every") = 8,
      nb::arg("images") = true, nb::arg("capture_args") = std::vector<std::string>{}, "Loads a dataset folder's cameras (gsplat conventions) and decoded images");
}

}  // namespace tilegrad::python
