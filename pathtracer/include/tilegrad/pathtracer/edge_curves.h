// The visibility edges of primary rays, as curves in 3D with an implicit function in the image:
//  - silhouettes: seen from the camera centre o, a sphere (c, r) is bounded by the circle where the tangent
//    cone touches it: centre m = c + w r^2 / D, radius rho = r sqrt(D^2 - r^2) / D, with D = |o - c| and
//    w = (o - c) / D; in the image the inside is h(x) = r^2 - |f - (f . d(x)) d(x)|^2 > 0 (f = c - o,
//    d(x) the unit ray direction through image point x);
//  - intersection curves: where two spheres a, b overlap, their surfaces meet on a circle; in the image,
//    a is seen in front of b where h(x) = t_b(x) - t_a(x) > 0 (t: first hit distance along the ray).
// A parameter change moves an edge along its normal at speed (dh/dtheta) / |grad_x h|.
#pragma once
#include "tilegrad/pathtracer/estimator.h"

namespace tilegrad::pathtracer {

// Point at angle phi of the circle with centre m and radius rho in the plane normal to the unit axis w.
template <class S>
TG_HD Vec3<S> circle_point(const Vec3<S>& m, const Vec3<S>& w, const S& rho, const S& phi) {
  Vec3<S> e1, e2;
  orthonormal_frame(w, e1, e2);
  return m + (e1 * cos(phi) + e2 * sin(phi)) * rho;
}

// World point of the silhouette circle at angle phi (the camera centre outside the sphere).
template <class S, class T>
TG_HD Vec3<S> silhouette_point(const Vec3<S>& c, const S& r, const Vec3<T>& o, const S& phi) {
  const Vec3<S> f = Vec3<S>{{o[0] - c[0], o[1] - c[1], o[2] - c[2]}};
  const S dist2 = dot(f, f), dist = sqrt(dist2);
  const Vec3<S> w = f / dist;
  return circle_point(c + w * (r * r / dist), w, r * sqrt(dist2 - r * r) / dist, phi);
}

// The implicit function h(x) (> 0 inside the silhouette) at image point (x, y).
template <class S, class T>
TG_HD S silhouette_function(const CameraT<T>& cam, const S& x, const S& y, const Vec3<S>& c, const S& r) {
  const Vec3<S> d = camera_direction(cam, x, y);
  const Vec3<S> f = sub(c, cam.position);
  const S b = dot(f, d);
  const Vec3<S> h = f - d * b;
  return r * r - dot(h, h);
}


// The circle where spheres a and b meet, when they overlap without one containing the other.
template <class S>
struct IntersectionCircle {
  Vec3<S> center, axis;  // axis: unit, from a's centre towards b's
  S radius;
  bool valid;
};
template <class S>
TG_HD IntersectionCircle<S> intersection_circle(const Vec3<S>& ca, const S& ra, const Vec3<S>& cb, const S& rb) {
  using T = scalar_of_t<S>;
  IntersectionCircle<S> k;
  const Vec3<S> f = cb - ca;
  const S d2 = dot(f, f);
  const S d = sqrt(d2);
  k.valid = value(d) < value(ra + rb) && value(d) > abs(value(ra - rb)) && value(d) > T(0);
  if (!k.valid) {
    k.center = ca;
    k.axis = Vec3<S>{{S(T(0)), S(T(0)), S(T(1))}};
    k.radius = S(T(0));
    return k;
  }
  const S along = (d2 + ra * ra - rb * rb) / (T(2) * d);  // distance from a's centre to the circle's plane
  k.axis = f / d;
  k.center = ca + k.axis * along;
  k.radius = sqrt(ra * ra - along * along);
  return k;
}

// h(x) = t_b(x) - t_a(x) at image point (x, y): positive where a is in front.
template <class S, class T>
TG_HD S intersection_function(const CameraT<T>& cam, const S& x, const S& y, const Vec3<S>& ca, const S& ra,
                              const Vec3<S>& cb, const S& rb) {
  const Vec3<S> d = camera_direction(cam, x, y);
  const Vec3<S> o = cam.position.template cast<S>();
  S ta = S(T(0)), tb = S(T(0));
  ray_sphere(o, d, ca, ra, T(0), T(INFINITY), ta, /*clamp_grazing=*/true);
  ray_sphere(o, d, cb, rb, T(0), T(INFINITY), tb, /*clamp_grazing=*/true);
  return tb - ta;
}

}  // namespace tilegrad::pathtracer
