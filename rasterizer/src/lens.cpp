// Lens models: the COLMAP model table, coefficients with their validity domain, and the undistorted camera.
#include "tilegrad/rasterizer/lens.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tilegrad/core/error.h"

namespace tilegrad::raster {

namespace {

struct ModelInfo {
  const char* name;
  LensFamily family;
  int count;
  const char* params[kMaxLensParams];
};

// Indexed by LensModel.
const ModelInfo kModels[kLensModelCount] = {
    {"PINHOLE", LensFamily::None, 0, {}},
    {"SIMPLE_RADIAL", LensFamily::RadialTangential, 1, {"k"}},
    {"RADIAL", LensFamily::RadialTangential, 2, {"k1", "k2"}},
    {"OPENCV", LensFamily::RadialTangential, 4, {"k1", "k2", "p1", "p2"}},
    {"FULL_OPENCV", LensFamily::RadialTangential, 8, {"k1", "k2", "p1", "p2", "k3", "k4", "k5", "k6"}},
    {"OPENCV_FISHEYE", LensFamily::Fisheye, 4, {"k1", "k2", "k3", "k4"}},
    {"SIMPLE_RADIAL_FISHEYE", LensFamily::Fisheye, 1, {"k"}},
    {"RADIAL_FISHEYE", LensFamily::Fisheye, 2, {"k1", "k2"}},
    {"FOV", LensFamily::Fov, 1, {"omega"}},
};

const ModelInfo& info(LensModel m) {
  const int i = static_cast<int>(m);
  TG_CHECK_ARG(i >= 0 && i < kLensModelCount, "unknown lens model ", i);
  return kModels[i];
}

constexpr double kPi = 3.14159265358979323846;
// Perspective models are scanned up to 89.5 degrees off axis; nothing a pinhole image holds lies beyond.
const double kMaxPerspectiveR = std::tan(89.5 * kPi / 180.0);

// The largest rho (before the first sample where `ok` fails) on the samples of [0, limit]: fine steps near the
// axis, coarser further out, so folds of strongly distorted lenses are located to within 1e-3 in r or theta.
template <class Ok>
double last_good_sample(double limit, const Ok& ok) {
  double previous = 0.0;
  double rho = 0.0;
  while (rho < limit) {
    const double step = rho < 2.0 ? 1e-3 : (rho < 20.0 ? 1e-2 : 1e-1);
    rho = std::min(rho + step, limit);
    if (!ok(rho)) return previous;
    previous = rho;
  }
  return limit;
}

bool finite_positive(double x) { return std::isfinite(x) && x > 0.0; }

void find_domain(LensCoefficients<double>& c) {
  if (c.family == LensFamily::None) {
    c.max_rho = c.max_r = kMaxPerspectiveR;
    return;
  }
  const double limit = c.family == LensFamily::Fisheye ? 0.5 * kPi * (1.0 - 1e-9) : kMaxPerspectiveR;
  double max_rho = 0.0;
  if (c.radial_only()) {
    // The radial map must keep growing (and a rational radial map keep a positive denominator).
    max_rho = last_good_sample(limit, [&](double rho) {
      if (c.family == LensFamily::RadialTangential) {
        const double r2 = rho * rho;
        if (!(1.0 + r2 * (c.k[3] + r2 * (c.k[4] + r2 * c.k[5])) > 0.0)) return false;
      }
      const Dual<double, 1> g = radial_map(c, Dual<double, 1>::variable(rho, 0));
      return std::isfinite(g.v) && finite_positive(g.d[0]);
    });
  } else {
    // With tangential terms: the Jacobian determinant must stay positive in every direction.
    constexpr int kDirections = 72;
    max_rho = last_good_sample(limit, [&](double rho) {
      const double r2 = rho * rho;
      if (!(1.0 + r2 * (c.k[3] + r2 * (c.k[4] + r2 * c.k[5])) > 0.0)) return false;
      for (int d = 0; d < kDirections; ++d) {
        const double phi = 2.0 * kPi * d / kDirections;
        const Mat2<double> j = distortion_jacobian(c, Vec2<double>{{rho * std::cos(phi), rho * std::sin(phi)}});
        if (!finite_positive(determinant(j))) return false;
      }
      return true;
    });
  }
  c.max_rho = max_rho;
  c.max_r = c.family == LensFamily::Fisheye ? std::tan(max_rho) : max_rho;
}

}  // namespace

const char* to_string(LensModel model) { return info(model).name; }
int lens_param_count(LensModel model) { return info(model).count; }

const char* lens_param_name(LensModel model, int index) {
  const ModelInfo& m = info(model);
  TG_CHECK_ARG(index >= 0 && index < m.count, m.name, " has no parameter ", index);
  return m.params[index];
}

bool is_pinhole(const Lens& lens) {
  const ModelInfo& m = info(lens.model);
  if (m.family == LensFamily::None) return true;
  if (m.family == LensFamily::Fisheye) return false;
  for (int i = 0; i < m.count; ++i)
    if (lens.params[i] != 0.0) return false;
  return true;
}

void validate(const Lens& lens) {
  const ModelInfo& m = info(lens.model);
  for (int i = 0; i < m.count; ++i)
    TG_CHECK_ARG(std::isfinite(lens.params[i]), m.name, " parameter ", m.params[i], " is not finite");
  if (lens.model == LensModel::Fov)
    TG_CHECK_ARG(std::abs(lens.params[0]) < kPi, "FOV parameter omega = ", lens.params[0],
                 " is outside (-pi, pi) (it is the field of view in radians)");
}

LensCoefficients<double> lens_coefficients(const Lens& lens) {
  validate(lens);
  const double* q = lens.params;
  LensCoefficients<double> c{};
  c.family = is_pinhole(lens) ? LensFamily::None : info(lens.model).family;
  switch (lens.model) {
    case LensModel::SimpleRadial:
    case LensModel::SimpleRadialFisheye:
      c.k[0] = q[0];
      break;
    case LensModel::Radial:
    case LensModel::RadialFisheye:
      c.k[0] = q[0];
      c.k[1] = q[1];
      break;
    case LensModel::OpenCV:
      c.k[0] = q[0], c.k[1] = q[1], c.p[0] = q[2], c.p[1] = q[3];
      break;
    case LensModel::FullOpenCV:  // k1 k2 p1 p2 k3 k4 k5 k6
      c.k[0] = q[0], c.k[1] = q[1], c.p[0] = q[2], c.p[1] = q[3];
      for (int i = 0; i < 4; ++i) c.k[2 + i] = q[4 + i];
      break;
    case LensModel::OpenCVFisheye:
      for (int i = 0; i < 4; ++i) c.k[i] = q[i];
      break;
    case LensModel::Fov:
      c.k[0] = q[0];
      break;
    case LensModel::Pinhole:
      break;
  }
  find_domain(c);
  return c;
}

LensCoefficients<float> to_float(const LensCoefficients<double>& c) {
  LensCoefficients<float> f{};
  f.family = c.family;
  for (int i = 0; i < 6; ++i) f.k[i] = static_cast<float>(c.k[i]);
  for (int i = 0; i < 2; ++i) f.p[i] = static_cast<float>(c.p[i]);
  // Rounded down, so a float domain never reaches past the double one.
  f.max_rho = std::nextafter(static_cast<float>(c.max_rho), 0.0f);
  f.max_r = std::nextafter(static_cast<float>(c.max_r), 0.0f);
  return f;
}

Vec2<double> distort_point(const LensCoefficients<double>& lens, const Vec2<double>& uv) { return distort(lens, uv); }

bool undistort_point(const LensCoefficients<double>& lens, const Vec2<double>& xd, Vec2<double>& uv) {
  return undistort(lens, xd, uv);
}

Camera undistorted_camera(const Camera& distorted, const Lens& lens, double blank_pixels, double min_scale,
                          double max_scale) {
  TG_CHECK_ARG(blank_pixels >= 0.0 && blank_pixels <= 1.0, "blank_pixels must be in [0, 1], got ", blank_pixels);
  TG_CHECK_ARG(min_scale > 0.0 && min_scale <= max_scale, "invalid scale range [", min_scale, ", ", max_scale, "]");
  if (is_pinhole(lens)) return distorted;
  const LensCoefficients<double> c = lens_coefficients(lens);
  const double fx = distorted.fx, fy = distorted.fy, cx = distorted.cx, cy = distorted.cy;
  const int w = distorted.width, h = distorted.height;
  TG_CHECK_ARG(w > 0 && h > 0, "undistorted_camera: empty camera ", w, "x", h);
  // Where the distorted pixel centre (x, y) lands in a pinhole camera with the same intrinsics.
  auto pinhole_of = [&](double x, double y, double& px, double& py) {
    Vec2<double> uv;
    if (!undistort(c, Vec2<double>{{(x - cx) / fx, (y - cy) / fy}}, uv)) return false;
    px = fx * uv[0] + cx;
    py = fy * uv[1] + cy;
    return std::isfinite(px) && std::isfinite(py);
  };
  constexpr double kMax = std::numeric_limits<double>::max(), kLow = std::numeric_limits<double>::lowest();
  double left_min = kMax, left_max = kLow, right_min = kMax, right_max = kLow;
  double top_min = kMax, top_max = kLow, bottom_min = kMax, bottom_max = kLow;
  double px = 0, py = 0;
  for (int y = 0; y < h; ++y) {
    if (pinhole_of(0.5, y + 0.5, px, py)) left_min = std::min(left_min, px), left_max = std::max(left_max, px);
    if (pinhole_of(w - 0.5, y + 0.5, px, py)) right_min = std::min(right_min, px), right_max = std::max(right_max, px);
  }
  for (int x = 0; x < w; ++x) {
    if (pinhole_of(x + 0.5, 0.5, px, py)) top_min = std::min(top_min, py), top_max = std::max(top_max, py);
    if (pinhole_of(x + 0.5, h - 0.5, px, py)) bottom_min = std::min(bottom_min, py), bottom_max = std::max(bottom_max, py);
  }
  // Borders beyond the lens's domain everywhere: nothing to measure, keep the size (then clamped below).
  auto ratio = [](double a, double b) { return std::isfinite(a / b) && a / b > 0 ? a / b : 1.0; };
  const double min_scale_x = std::min(ratio(cx, cx - left_min), ratio(w - 0.5 - cx, right_max - cx));
  const double min_scale_y = std::min(ratio(cy, cy - top_min), ratio(h - 0.5 - cy, bottom_max - cy));
  const double max_scale_x = std::max(ratio(cx, cx - left_max), ratio(w - 0.5 - cx, right_min - cx));
  const double max_scale_y = std::max(ratio(cy, cy - top_max), ratio(h - 0.5 - cy, bottom_min - cy));
  const double scale_x =
      std::clamp(1.0 / (min_scale_x * blank_pixels + max_scale_x * (1.0 - blank_pixels)), min_scale, max_scale);
  const double scale_y =
      std::clamp(1.0 / (min_scale_y * blank_pixels + max_scale_y * (1.0 - blank_pixels)), min_scale, max_scale);
  Camera out = distorted;
  out.width = static_cast<int>(std::max(1.0, scale_x * w));
  out.height = static_cast<int>(std::max(1.0, scale_y * h));
  out.cx = static_cast<float>(cx * out.width / w);
  out.cy = static_cast<float>(cy * out.height / h);
  return out;
}

}  // namespace tilegrad::raster
