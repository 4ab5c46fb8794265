// make_request (request.h): gsplat's camera arrays and render modes in the library's terms, and the checks of
// every array of a call.
#include "request.h"

#include <cmath>

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

}  // namespace

RenderRequest make_request(const Array& means, const Array& quats, const Array& scales, const Array& opacities,
                           const std::optional<Array>& colors, const std::optional<Array>& sh, const Array& viewmats,
                           const Array& ks, int width, int height, std::optional<int> sh_degree, float near_plane,
                           float far_plane, const std::optional<Array>& backgrounds, float eps2d, bool antialiased,
                           const std::string& render_mode, std::tuple<float, float, float, float> thresholds,
                           bool meta, const std::optional<nb::ndarray<>>& means2d_out,
                           std::vector<Array>& keep_alive) {
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
    keep_alive.push_back(*colors);
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
    keep_alive.push_back(*sh);
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
    keep_alive.push_back(target);
  }
  keep_alive.insert(keep_alive.end(), {means, quats, scales, opacities});
  return q;
}

}  // namespace tilegrad::python
