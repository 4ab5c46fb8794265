// Lens distortion of real cameras, with COLMAP's model definitions and parameter orders. A distorted camera is
// a raster::Camera (fx, fy, cx, cy, size, pose) plus a Lens; a ray with normalized coordinates (u, v) = (x/z, y/z)
// lands at pixel (fx xd + cx, fy yd + cy), where (xd, yd) = distort(lens, (u, v)). The per-element math is in
// element/lens.h (host and device); this header holds the model table, the validity domain and the choice of the
// pinhole camera an image is undistorted into.
#pragma once
#include <string>

#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/element/lens.h"

namespace tilegrad::raster {

// COLMAP's camera models with distortion (and Pinhole for none). The parameters are the model's distortion
// parameters in COLMAP's order, after the focal length(s) and the principal point:
//   SIMPLE_RADIAL k | RADIAL k1 k2 | OPENCV k1 k2 p1 p2 | FULL_OPENCV k1 k2 p1 p2 k3 k4 k5 k6 |
//   OPENCV_FISHEYE k1 k2 k3 k4 | SIMPLE_RADIAL_FISHEYE k | RADIAL_FISHEYE k1 k2 | FOV omega
enum class LensModel : int {
  Pinhole,
  SimpleRadial,
  Radial,
  OpenCV,
  FullOpenCV,
  OpenCVFisheye,
  SimpleRadialFisheye,
  RadialFisheye,
  Fov,
};
constexpr int kLensModelCount = 9;

struct Lens {
  LensModel model = LensModel::Pinhole;
  double params[kMaxLensParams] = {};  // lens_param_count(model) used, the rest zero
};

const char* to_string(LensModel model);  // COLMAP's name: "OPENCV", ...; "PINHOLE" for none
int lens_param_count(LensModel model);
// The parameter names in order ("k1", "p1", "omega", ...), for messages and files.
const char* lens_param_name(LensModel model, int index);

// True when the lens maps rays exactly as a pinhole: no model, or a perspective model (radial, OpenCV, FOV)
// whose coefficients are all zero. Fisheye models never are (they project equidistantly).
bool is_pinhole(const Lens& lens);

// InvalidArgument naming the parameter when one is not finite, or a FOV omega outside [0, pi).
void validate(const Lens& lens);

// The coefficients the per-element math uses, with the validity domain: max_rho is where the model stops being
// one-to-one (the radial map or the Jacobian determinant of the distortion stops growing), found by scanning
// (perspective models up to 89.5 degrees off axis, fisheye models up to 90 degrees). Rays beyond it are
// outside the image.
LensCoefficients<double> lens_coefficients(const Lens& lens);
LensCoefficients<float> to_float(const LensCoefficients<double>& c);

// Host forms of the per-element functions, in double. undistort_point is false where no ray maps to xd.
Vec2<double> distort_point(const LensCoefficients<double>& lens, const Vec2<double>& uv);
bool undistort_point(const LensCoefficients<double>& lens, const Vec2<double>& xd, Vec2<double>& uv);

// The pinhole camera an image of `distorted` (with `lens`) is undistorted into, as COLMAP's image_undistorter
// chooses it: the same focal lengths and pose; the border pixel centres of the distorted image are undistorted,
// and the size is scaled by a factor per axis (clamped to [min_scale, max_scale]) that is the interpolation by
// blank_pixels between the largest one that leaves no pixel without a source (0, a crop) and the smallest one
// that keeps every source pixel (1); the principal point scales with the size. A pinhole lens returns the
// camera unchanged.
Camera undistorted_camera(const Camera& distorted, const Lens& lens, double blank_pixels = 0.0,
                          double min_scale = 0.2, double max_scale = 2.0);

}  // namespace tilegrad::raster
