// Per-element lens distortion (host and device): the forward map of normalized ray coordinates (u, v) = (x/z, y/z)
// to distorted normalized coordinates (xd, yd), and its inverse by Newton iteration. COLMAP's ten models reduce
// to three families (see lens.h for the model table):
//
//   RadialTangential  (SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV), r^2 = u^2 + v^2:
//     radial = (1 + k1 r^2 + k2 r^4 + k3 r^6) / (1 + k4 r^2 + k5 r^4 + k6 r^6)
//     xd = u radial + 2 p1 u v + p2 (r^2 + 2 u^2),   yd = v radial + 2 p2 u v + p1 (r^2 + 2 v^2)
//   Fisheye  (OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE), theta = atan(r):
//     theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8),   (xd, yd) = (u, v) theta_d / r
//   Fov  (FOV, Devernay and Faugeras), omega = k[0]:
//     (xd, yd) = (u, v) atan(2 r tan(omega / 2)) / (r omega)
//
// The functions are templates over the scalar: float in kernels, double for host geometry and tests, Dual
// numbers for the Jacobian the inverse uses. Removable singularities (r = 0, omega = 0) use series.
#pragma once
#include <type_traits>

#include "tilegrad/ad/functions.h"
#include "tilegrad/core/vec.h"

namespace tilegrad::raster {

constexpr int kMaxLensParams = 8;

enum class LensFamily : int { None = 0, RadialTangential = 1, Fisheye = 2, Fov = 3 };

// Trivially copyable: passed to kernels by value.
template <class T>
struct LensCoefficients {
  LensFamily family;
  T k[6];  // RadialTangential: k1..k6; Fisheye: k1..k4; Fov: k[0] = omega
  T p[2];  // RadialTangential: p1, p2
  // The domain where the map is one-to-one: rho below max_rho, where rho is r for the perspective families and
  // theta for Fisheye; max_r is the same bound as an undistorted radius r.
  T max_rho, max_r;

  TG_HD bool radial_only() const { return family != LensFamily::RadialTangential || (p[0] == T(0) && p[1] == T(0)); }
};

namespace lens_detail {

// Relative step below which Newton iterations stop: a few units in the last place.
template <class T>
TG_HD TG_INLINE T newton_tolerance() {
  if constexpr (std::is_same_v<T, float>) {
    return T(1e-6);
  } else {
    return T(2e-15);
  }
}

// theta_d / r of the Fisheye family as a function of r^2 (the series 1 + (k1 - 1/3) r^2 at the axis).
template <class S, class T>
TG_HD TG_INLINE S fisheye_factor(const LensCoefficients<T>& c, const S& r2) {
  if (r2 < T(1e-12)) return S(T(1)) + (c.k[0] - T(1) / T(3)) * r2;
  const S r = sqrt(r2);
  const S theta = atan(r);
  const S t2 = theta * theta;
  const S poly = T(1) + t2 * (c.k[0] + t2 * (c.k[1] + t2 * (c.k[2] + t2 * c.k[3])));
  return theta * poly / r;
}

// atan(2 r tan(omega / 2)) / (r omega) of the Fov family as a function of r^2.
template <class S, class T>
TG_HD TG_INLINE S fov_factor(const LensCoefficients<T>& c, const S& r2) {
  const T w = c.k[0];
  const T w2 = w * w;
  // 2 tan(omega / 2) / omega, the slope at the axis (1 + omega^2 / 12 + ... for small omega).
  const T slope = w2 < T(1e-8) ? T(1) + w2 / T(12) : T(2) * tan(w / T(2)) / w;
  const S x2 = r2 * (w2 * slope * slope);  // (2 r tan(omega / 2))^2
  if (x2 < T(1e-6)) return slope * (S(T(1)) - x2 / T(3) + x2 * x2 / T(5));
  const S x = sqrt(x2);
  return slope * atan(x) / x;
}

}  // namespace lens_detail

// The distorted radius of the radially symmetric maps as a function of rho (r, or theta for Fisheye); for
// RadialTangential it ignores p1, p2.
template <class S, class T>
TG_HD S radial_map(const LensCoefficients<T>& c, const S& rho) {
  const S r2 = rho * rho;
  switch (c.family) {
    case LensFamily::RadialTangential: {
      const S num = T(1) + r2 * (c.k[0] + r2 * (c.k[1] + r2 * c.k[2]));
      const S den = T(1) + r2 * (c.k[3] + r2 * (c.k[4] + r2 * c.k[5]));
      return rho * num / den;
    }
    case LensFamily::Fisheye:
      return rho * (T(1) + r2 * (c.k[0] + r2 * (c.k[1] + r2 * (c.k[2] + r2 * c.k[3]))));
    case LensFamily::Fov:
      return rho * lens_detail::fov_factor(c, r2);
    case LensFamily::None:
      break;
  }
  return rho;
}

// (u, v) -> (xd, yd).
template <class S, class T>
TG_HD Vec2<S> distort(const LensCoefficients<T>& c, const Vec2<S>& uv) {
  const S u = uv[0], v = uv[1];
  const S r2 = u * u + v * v;
  switch (c.family) {
    case LensFamily::RadialTangential: {
      const S num = T(1) + r2 * (c.k[0] + r2 * (c.k[1] + r2 * c.k[2]));
      const S den = T(1) + r2 * (c.k[3] + r2 * (c.k[4] + r2 * c.k[5]));
      const S radial = num / den;
      const S uv2 = T(2) * u * v;
      return {{u * radial + c.p[0] * uv2 + c.p[1] * (r2 + T(2) * u * u),
               v * radial + c.p[1] * uv2 + c.p[0] * (r2 + T(2) * v * v)}};
    }
    case LensFamily::Fisheye: {
      const S f = lens_detail::fisheye_factor(c, r2);
      return {{u * f, v * f}};
    }
    case LensFamily::Fov: {
      const S f = lens_detail::fov_factor(c, r2);
      return {{u * f, v * f}};
    }
    case LensFamily::None:
      break;
  }
  return uv;
}

// The Jacobian d(xd, yd) / d(u, v) (forward-mode dual numbers through distort).
template <class T>
TG_HD Mat2<T> distortion_jacobian(const LensCoefficients<T>& c, const Vec2<T>& uv) {
  const Vec2<Dual<T, 2>> x{{Dual<T, 2>::variable(uv[0], 0), Dual<T, 2>::variable(uv[1], 1)}};
  const Vec2<Dual<T, 2>> d = distort(c, x);
  Mat2<T> j;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 2; ++k) j(i, k) = d[i].d[k];
  return j;
}

// Whether the ray (u, v) lies in the lens's one-to-one domain.
template <class T>
TG_HD TG_INLINE bool in_lens_domain(const LensCoefficients<T>& c, T u, T v) {
  return u * u + v * v < c.max_r * c.max_r;
}

// Solves radial_map(rho) = rd for rho in [0, max_rho] by Newton steps kept inside a shrinking bracket (a step that
// leaves it bisects instead). False when rd lies beyond the map's range on the domain.
template <class T>
TG_HD bool invert_radial_map(const LensCoefficients<T>& c, T rd, T& rho) {
  T lo = T(0), hi = c.max_rho;
  if (radial_map(c, hi) < rd) return false;
  rho = rd < hi ? rd : T(0.5) * hi;
  const T tol = lens_detail::newton_tolerance<T>();
  for (int it = 0; it < 200; ++it) {
    const Dual<T, 1> g = radial_map(c, Dual<T, 1>::variable(rho, 0)) - rd;
    if (g.v == T(0)) return true;
    (g.v > T(0) ? hi : lo) = rho;
    T next = rho - g.v / g.d[0];
    if (!(g.d[0] > T(0)) || !(next > lo && next < hi)) next = T(0.5) * (lo + hi);
    const T step = next - rho;
    rho = next;
    if ((step < T(0) ? -step : step) <= tol * (T(1) + rho)) return true;
  }
  return false;
}

// (xd, yd) -> (u, v): the inverse of distort by Newton iteration (1D on the radius for radially symmetric maps,
// 2D with the dual-number Jacobian otherwise, steps kept inside the domain). False where no ray maps to xd or
// the iteration does not converge.
template <class T>
TG_HD bool undistort(const LensCoefficients<T>& c, const Vec2<T>& xd, Vec2<T>& uv) {
  if (c.family == LensFamily::None) {
    uv = xd;
    return true;
  }
  const T tol = lens_detail::newton_tolerance<T>();
  if (c.radial_only()) {
    const T rd = sqrt(xd[0] * xd[0] + xd[1] * xd[1]);
    if (rd == T(0)) {
      uv = xd;
      return true;
    }
    T rho = T(0);
    if (!invert_radial_map(c, rd, rho)) return false;
    const T r = c.family == LensFamily::Fisheye ? tan(rho) : rho;
    uv = xd * (r / rd);
    return true;
  }
  uv = xd;
  for (int it = 0; it < 100; ++it) {
    const Vec2<Dual<T, 2>> x{{Dual<T, 2>::variable(uv[0], 0), Dual<T, 2>::variable(uv[1], 1)}};
    const Vec2<Dual<T, 2>> d = distort(c, x);
    const T f0 = d[0].v - xd[0], f1 = d[1].v - xd[1];
    const T a = d[0].d[0], b = d[0].d[1], e = d[1].d[0], g = d[1].d[1];
    const T det = a * g - b * e;
    if (!(det > T(0))) return false;
    Vec2<T> step{{(g * f0 - b * f1) / det, (a * f1 - e * f0) / det}};
    Vec2<T> next = uv - step;
    for (int halve = 0; halve < 60 && !in_lens_domain(c, next[0], next[1]); ++halve) {
      step = step * T(0.5);
      next = uv - step;
    }
    if (!in_lens_domain(c, next[0], next[1])) return false;
    uv = next;
    if (step[0] * step[0] + step[1] * step[1] <= tol * tol * (T(1) + uv[0] * uv[0] + uv[1] * uv[1])) {
      const Vec2<T> back = distort(c, uv);
      const T e0 = back[0] - xd[0], e1 = back[1] - xd[1];
      return e0 * e0 + e1 * e1 <= T(64) * tol * tol * (T(1) + xd[0] * xd[0] + xd[1] * xd[1]);
    }
  }
  return false;
}

}  // namespace tilegrad::raster
