// Per-element geometry written once over the scalar (float, double, duals): camera rays, projection,
// ray-sphere intersection and normals. Host and device.
#pragma once
#include "tilegrad/ad/functions.h"
#include "tilegrad/core/vec.h"
#include "tilegrad/pathtracer/scene.h"

namespace tilegrad::pathtracer {

// Mixed-type helpers: R is the ray's scalar (often a constant), S the parameters' (often a dual).
template <class S, class R>
TG_HD TG_INLINE Vec3<S> sub(const Vec3<S>& a, const Vec3<R>& b) {
  return {{a[0] - b[0], a[1] - b[1], a[2] - b[2]}};
}
template <class S, class R>
TG_HD TG_INLINE S dot_mixed(const Vec3<S>& a, const Vec3<R>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

template <class S>
TG_HD TG_INLINE Vec3<S> normalized(const Vec3<S>& v) {
  return v * rsqrt(dot(v, v));
}

// World-space direction (unit) of the ray through image point (x, y), in pixels.
template <class S, class T>
TG_HD Vec3<S> camera_direction(const CameraT<T>& cam, const S& x, const S& y) {
  const Vec3<S> local = {{(x - cam.cx) / cam.fx, (y - cam.cy) / cam.fy, S(T(1))}};
  Vec3<S> d;
  TG_UNROLL for (int i = 0; i < 3; ++i) d[i] = cam.rotation(i, 0) * local[0] + cam.rotation(i, 1) * local[1] + cam.rotation(i, 2) * local[2];
  return normalized(d);
}

// Camera-space coordinates of a world point.
template <class S, class T>
TG_HD Vec3<S> to_camera(const CameraT<T>& cam, const Vec3<S>& p) {
  const Vec3<S> q = sub(p, cam.position);
  Vec3<S> r;
  TG_UNROLL for (int j = 0; j < 3; ++j) r[j] = q[0] * cam.rotation(0, j) + q[1] * cam.rotation(1, j) + q[2] * cam.rotation(2, j);
  return r;
}

// Image point (pixels) of a camera-space point with z > 0.
template <class S, class T>
TG_HD Vec2<S> project_camera(const CameraT<T>& cam, const Vec3<S>& pc) {
  const S inv_z = S(T(1)) / pc[2];
  return {{cam.fx * pc[0] * inv_z + cam.cx, cam.fy * pc[1] * inv_z + cam.cy}};
}

// First intersection t > tmin of the ray o + t d (unit d) with the sphere (c, r). Returns false on a miss.
// Numerically stable form: the discriminant from the ray's perpendicular offset, the near root from
// Vieta's product where the difference would cancel. The root is chosen on values; derivatives follow it.
// clamp_grazing keeps a recorded (replayed) hit alive when rounding pushes the discriminant just below 0.
template <class S, class R>
TG_HD bool ray_sphere(const Vec3<R>& o, const Vec3<R>& d, const Vec3<S>& c, const S& r, scalar_of_t<S> tmin,
                      scalar_of_t<S> tmax, S& t, bool clamp_grazing = false) {
  using T = scalar_of_t<S>;
  const Vec3<S> f = sub(c, o);              // origin -> centre
  const S b = dot_mixed(f, d);              // distance along the ray to the closest approach
  const Vec3<S> h = {{f[0] - b * d[0], f[1] - b * d[1], f[2] - b * d[2]}};
  S disc = r * r - dot(h, h);
  if (disc < T(0)) {
    if (!clamp_grazing) return false;
    disc = S(T(0));
  }
  // At an exact grazing hit sqrt has an infinite slope: keep the root's value and drop that derivative
  // (a set of measure zero) instead of producing inf * 0 = NaN.
  const S q = value(disc) > T(0) ? sqrt(disc) : S(T(0));
  const S c2 = dot(f, f) - r * r;           // product of the roots
  S t0 = b - q;
  if (b > T(0) && value(b + q) > T(0)) t0 = c2 / (b + q);
  const S t1 = b + q;
  if (t0 > tmin && t0 < tmax) {
    t = t0;
    return true;
  }
  if (t1 > tmin && t1 < tmax) {
    t = t1;
    return true;
  }
  return false;
}

// Outward unit normal at a point of the sphere.
template <class S>
TG_HD TG_INLINE Vec3<S> sphere_normal(const Vec3<S>& x, const Vec3<S>& c, const S& r) {
  return (x - c) * (S(scalar_of_t<S>(1)) / r);
}

}  // namespace tilegrad::pathtracer
