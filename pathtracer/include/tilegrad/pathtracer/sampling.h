// Per-element sampling written once over the scalar: an orthonormal frame around a direction, cosine-weighted
// hemisphere directions, and uniform directions in the cone a sphere subtends (with its pdf). Directions are
// deterministic functions of the random numbers and of the parameters, so duals differentiate through them.
#pragma once
#include "tilegrad/pathtracer/geometry.h"

namespace tilegrad::pathtracer {

inline constexpr double kPi = 3.14159265358979323846;

// Frame (e1, e2) with (e1, e2, n) right-handed and orthonormal, for unit n. Built from cross products with a
// fixed oblique axis: smooth in n except at +-axis, a direction no scene element is aligned with on purpose
// (every continuous frame field on the sphere must have such a point); a second axis takes over there.
template <class S>
TG_HD void orthonormal_frame(const Vec3<S>& n, Vec3<S>& e1, Vec3<S>& e2) {
  using T = scalar_of_t<S>;
  // normalize(1, 2, 3) and normalize(-3, 1, 2): not parallel to each other or to any coordinate axis.
  const T a = T(0.2672612419124244), b = T(0.5345224838248488), c = T(0.8017837257372732);
  Vec3<S> k = {{S(a), S(b), S(c)}};
  Vec3<S> t = cross(k, n);
  if (value(dot(t, t)) < T(1e-6)) {
    k = {{S(T(-c)), S(T(a)), S(T(b))}};
    t = cross(k, n);
  }
  e1 = normalized(t);
  e2 = cross(n, e1);
}

// Cosine-weighted direction around the unit normal n (pdf cos / pi): the Lambertian BRDF x cos / pdf is
// the albedo.
template <class S, class T>
TG_HD Vec3<S> sample_cosine_hemisphere(const Vec3<S>& n, T u, T v) {
  Vec3<S> e1, e2;
  orthonormal_frame(n, e1, e2);
  const T r = sqrt(u), phi = T(2 * kPi) * v;
  const T x = r * cos(phi), y = r * sin(phi), z = sqrt(T(1) - u);
  return e1 * x + e2 * y + n * z;
}

template <class S>
struct ConeSample {
  Vec3<S> direction;  // unit
  S inv_pdf;          // solid angle of the cone: 2 pi (1 - cos theta_max)
  bool valid;         // false when x is inside the sphere
};

// 1 - cos(theta_max) of the cone from a point at squared distance dist2 to a sphere of radius r, without
// cancellation: sin^2 / (1 + cos).
template <class S>
TG_HD TG_INLINE S cone_one_minus_cos(const S& r, const S& dist2, S& cos_max) {
  using T = scalar_of_t<S>;
  const S sin2 = r * r / dist2;
  cos_max = sqrt(T(1) - sin2);
  return sin2 / (T(1) + cos_max);
}

// Direction uniformly distributed in the cone from x subtended by the sphere (c, r); every direction of the
// cone hits the sphere. cos theta = 1 - u (1 - cos theta_max), phi = 2 pi v.
template <class S, class T>
TG_HD ConeSample<S> sample_sphere_cone(const Vec3<S>& x, const Vec3<S>& c, const S& r, T u, T v) {
  ConeSample<S> s;
  const Vec3<S> f = c - x;
  const S dist2 = dot(f, f);
  s.valid = value(dist2) > value(r * r);
  if (!s.valid) {
    s.direction = Vec3<S>::zero();
    s.inv_pdf = S(T(0));
    return s;
  }
  const Vec3<S> w = f * rsqrt(dist2);
  S cos_max;
  const S one_minus = cone_one_minus_cos(r, dist2, cos_max);
  const S one_minus_cos = one_minus * u;                      // 1 - cos theta
  const S sin_theta = sqrt(one_minus_cos * (T(2) - one_minus_cos));
  const S cos_theta = T(1) - one_minus_cos;
  Vec3<S> e1, e2;
  orthonormal_frame(w, e1, e2);
  const T phi = T(2 * kPi) * v;
  s.direction = w * cos_theta + (e1 * cos(phi) + e2 * sin(phi)) * sin_theta;
  s.inv_pdf = T(2 * kPi) * one_minus;
  return s;
}

// The cone's pdf (per solid angle) seen from x; 0 when x is inside the sphere.
template <class S>
TG_HD S sphere_cone_pdf(const Vec3<S>& x, const Vec3<S>& c, const S& r) {
  using T = scalar_of_t<S>;
  const Vec3<S> f = c - x;
  const S dist2 = dot(f, f);
  if (!(value(dist2) > value(r * r))) return S(T(0));
  S cos_max;
  return T(1) / (T(2 * kPi) * cone_one_minus_cos(r, dist2, cos_max));
}

}  // namespace tilegrad::pathtracer
