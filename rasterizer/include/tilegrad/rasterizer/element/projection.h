// Per-Gaussian projection (EWA splatting): activations, 3D covariance, camera transform, 2D covariance with the
// pinhole Jacobian, conic, opacity (with antialiasing compensation). One template over the scalar type serves the
// CPU reference, the CUDA kernels and, instantiated with Dual numbers, the projection backward.
#pragma once
#include "tilegrad/ad/functions.h"
#include "tilegrad/core/vec.h"
#include "tilegrad/rasterizer/camera.h"

namespace tilegrad::raster {

// Camera data the per-element code needs (trivially copyable: passed to kernels by value).
struct ProjectionCamera {
  Mat3<float> rotation;
  Vec3<float> translation, position;
  float fx, fy, cx, cy;
  float near_plane, far_plane;
  float lim_x, lim_y;  // |x/z|, |y/z| limits of the Jacobian (guard band around the frustum)
  int width, height;
};

// Half extent of an image of `size` pixels around the principal point `c`: max(c, size - c).
inline float guard_half_extent(float c, int size) {
  return 0.5f * static_cast<float>(size) + (c > 0.5f * size ? c - 0.5f * size : 0.5f * size - c);
}

inline ProjectionCamera make_projection_camera(const Camera& c) {
  ProjectionCamera p;
  p.rotation = c.rotation;
  p.translation = c.translation;
  p.position = c.position();
  p.fx = c.fx;
  p.fy = c.fy;
  p.cx = c.cx;
  p.cy = c.cy;
  p.near_plane = c.near_plane;
  p.far_plane = c.far_plane;
  // The EWA Jacobian is evaluated at the point clamped to 1.3x the half field of view (as in 3DGS): far
  // outside the frustum the linearisation is meaningless and would blow up the footprint.
  const float guard = 1.3f;
  const float half_x = c.guard_half_width > 0.0f ? c.guard_half_width : guard_half_extent(c.cx, c.width);
  const float half_y = c.guard_half_height > 0.0f ? c.guard_half_height : guard_half_extent(c.cy, c.height);
  p.lim_x = guard * half_x / c.fx;
  p.lim_y = guard * half_y / c.fy;
  p.width = c.width;
  p.height = c.height;
  return p;
}

template <class S>
TG_HD Mat3<S> rotation_from_quaternion(const Vec4<S>& q_raw) {
  const S inv = rsqrt(q_raw[0] * q_raw[0] + q_raw[1] * q_raw[1] + q_raw[2] * q_raw[2] + q_raw[3] * q_raw[3]);
  const S w = q_raw[0] * inv, x = q_raw[1] * inv, y = q_raw[2] * inv, z = q_raw[3] * inv;
  using T = scalar_of_t<S>;
  const T one(1), two(2);
  return {{{one - two * (y * y + z * z), two * (x * y - w * z), two * (x * z + w * y)},
           {two * (x * y + w * z), one - two * (x * x + z * z), two * (y * z - w * x)},
           {two * (x * z - w * y), two * (y * z + w * x), one - two * (x * x + y * y)}}};
}

// Sigma = R S S^T R^T with S = diag(exp(log_scale)).
template <class S>
TG_HD Mat3<S> covariance_3d(const Vec3<S>& log_scale, const Vec4<S>& quat) {
  const Mat3<S> r = rotation_from_quaternion(quat);
  Mat3<S> m;
  TG_UNROLL for (int i = 0; i < 3; ++i) {
    const S s = exp(log_scale[i]);
    TG_UNROLL for (int k = 0; k < 3; ++k) m(k, i) = r(k, i) * s;
  }
  return m * m.transposed();
}

template <class S>
struct Projected {
  Vec2<S> mean2d;  // pixels
  Vec3<S> conic;   // inverse 2D covariance (a, b, c): power = -0.5 (a dx^2 + c dy^2) - b dx dy
  S opacity;       // sigmoid(logit), times the antialiasing compensation when enabled
  S depth;         // camera-space z
  Vec3<S> cov2d;   // 2D covariance including the blur (a, b, c)
  bool valid;      // false: behind the near plane, beyond far, degenerate
};

// Projects one Gaussian given its 3D covariance (the screen-space part of the projection): camera transform,
// EWA 2D covariance, conic and opacity. `blur` is added to the 2D covariance diagonal; antialiased multiplies the
// opacity by sqrt(det(cov) / det(cov + blur I)).
template <class S>
TG_HD Projected<S> project_covariance(const Vec3<S>& mean, const Mat3<S>& sigma, const S& opacity_logit,
                                      const ProjectionCamera& cam, float blur, bool antialiased) {
  using T = scalar_of_t<S>;
  Projected<S> out;
  out.valid = false;
  // Explicit fma: the depth is a sort key, and it must have the same bits on the CPU and the GPU or nearly
  // equal depths could composite in different orders.
  Vec3<S> p;
  TG_UNROLL for (int i = 0; i < 3; ++i) {
    p[i] = S(T(cam.translation[i]));
    TG_UNROLL for (int k = 0; k < 3; ++k) p[i] = fma(T(cam.rotation(i, k)), mean[k], p[i]);
  }
  out.depth = p[2];
  if (!(p[2] > T(cam.near_plane)) || !(p[2] < T(cam.far_plane))) return out;

  // Camera-frame covariance W Sigma W^T (W constant: plain-scalar factors keep the dual work small).
  Mat3<S> ws;  // W Sigma
  TG_UNROLL for (int i = 0; i < 3; ++i) TG_UNROLL for (int k = 0; k < 3; ++k) {
    S acc = T(cam.rotation(i, 0)) * sigma(0, k);
    TG_UNROLL for (int m = 1; m < 3; ++m) acc = acc + T(cam.rotation(i, m)) * sigma(m, k);
    ws(i, k) = acc;
  }
  Mat3<S> cov_cam;
  TG_UNROLL for (int i = 0; i < 3; ++i) TG_UNROLL for (int k = i; k < 3; ++k) {
    S acc = ws(i, 0) * T(cam.rotation(k, 0));
    TG_UNROLL for (int m = 1; m < 3; ++m) acc = acc + ws(i, m) * T(cam.rotation(k, m));
    cov_cam(i, k) = acc;
    cov_cam(k, i) = acc;
  }

  const S inv_z = T(1) / p[2];
  const S tx = clamp(p[0] * inv_z, T(-cam.lim_x), T(cam.lim_x)) * p[2];
  const S ty = clamp(p[1] * inv_z, T(-cam.lim_y), T(cam.lim_y)) * p[2];
  // J = [[j00, 0, j02], [0, j11, j12]]; cov = J cov_cam J^T written out for the two zero entries.
  const S j00 = T(cam.fx) * inv_z, j02 = -T(cam.fx) * tx * inv_z * inv_z;
  const S j11 = T(cam.fy) * inv_z, j12 = -T(cam.fy) * ty * inv_z * inv_z;
  const S a0 = j00 * j00 * cov_cam(0, 0) + T(2) * j00 * j02 * cov_cam(0, 2) + j02 * j02 * cov_cam(2, 2);
  const S b = j00 * j11 * cov_cam(0, 1) + j00 * j12 * cov_cam(0, 2) + j02 * j11 * cov_cam(1, 2) +
              j02 * j12 * cov_cam(2, 2);
  const S c0 = j11 * j11 * cov_cam(1, 1) + T(2) * j11 * j12 * cov_cam(1, 2) + j12 * j12 * cov_cam(2, 2);

  const S a = a0 + T(blur), c = c0 + T(blur);
  const S det = a * c - b * b;
  if (!(det > T(0))) return out;
  S opacity = sigmoid(opacity_logit);
  if (antialiased) {
    const S det0 = a0 * c0 - b * b;
    opacity = opacity * sqrt(max(det0 / det, S(T(0))));
  }
  const S inv_det = T(1) / det;
  out.conic = {{c * inv_det, -b * inv_det, a * inv_det}};
  out.cov2d = {{a, b, c}};
  out.mean2d = {{T(cam.fx) * p[0] * inv_z + T(cam.cx), T(cam.fy) * p[1] * inv_z + T(cam.cy)}};
  out.opacity = opacity;
  out.valid = true;
  return out;
}

// Projects one Gaussian from its parameters.
template <class S>
TG_HD Projected<S> project_gaussian(const Vec3<S>& mean, const Vec3<S>& log_scale, const Vec4<S>& quat,
                                    const S& opacity_logit, const ProjectionCamera& cam, float blur,
                                    bool antialiased) {
  return project_covariance(mean, covariance_3d(log_scale, quat), opacity_logit, cam, blur, antialiased);
}

// Radius (pixels) of the footprint: extent_sigmas standard deviations along the major axis.
TG_HD inline float footprint_radius(float a, float b, float c, float extent_sigmas) {
  const float mid = 0.5f * (a + c);
  const float lambda = mid + ::sqrtf(fmaxf(0.1f, mid * mid - (a * c - b * b)));
  return ::ceilf(extent_sigmas * ::sqrtf(lambda));
}

// Half-widths (pixels, along x and y) of the box around mean2d that holds every pixel a splat can reach.
struct Extents {
  float x, y;
};

// The footprint square (footprint_radius of cov2d at extent_sigmas), cut down to the bounding box of the ellipse outside which
// opacity * exp(power) < min_alpha, where fragment_at skips the pixel. With cov2d = [[a, b], [b, c]] and the
// level q = 2 ln(opacity / min_alpha) of the quadratic form at that threshold, the ellipse's box is
// sqrt(q a) x sqrt(q c). Faint and axis-aligned elongated splats then touch fewer tiles; the pixels that receive
// fragments are the same. The fragment test evaluates the conic (cov2d's inverse, rounded), so the level gets a
// slack of 0.05 and the box 1% more width. {0, 0} (no tile) when the splat is fainter than min_alpha
// everywhere; min_alpha = 0 keeps the square.
TG_HD inline Extents footprint_extents(float a, float b, float c, float opacity, float extent_sigmas, float min_alpha) {
  const float radius = footprint_radius(a, b, c, extent_sigmas);
  if (!(min_alpha > 0.0f)) return {radius, radius};
  if (!(opacity > min_alpha * 0.95f)) return {0.0f, 0.0f};
  const float level = 2.0f * log(opacity / min_alpha) + 0.05f;
  if (!(level > 0.0f)) return {0.0f, 0.0f};
  return {fminf(radius, 1.01f * ::sqrtf(level * a)), fminf(radius, 1.01f * ::sqrtf(level * c))};
}

}  // namespace tilegrad::raster
