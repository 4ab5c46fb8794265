// Distortion energies of maps from rest triangles: symmetric Dirichlet of a planar map (parameterization),
// the same on the unit sphere in tangent-space variables (spherical embedding), and a finite untangling energy
// for starting points that hold inverted triangles. All return +inf on inverted triangles where noted, which
// the line search treats as a barrier.
#pragma once
#include "tilegrad/ad/element_energy.h"

namespace tilegrad::mesh {

// The rest triangle in its own plane: area and the inverse of its edge matrix [p1 - p0, p2 - p0] (2 x 2,
// row-major), so that J = [u1 - u0, u2 - u0] rest_inverse is the map's Jacobian.
template <class T>
struct RestTriangle {
  T rest_inverse[4];
  T area;
};

// Invariants of C = J^T J from the Gram matrix G of the image edges: C = rest_inverse^T G rest_inverse, so
// |J|^2 = tr C and det J^2 = det C.
template <class S>
struct MetricInvariants {
  S trace, det;
};

template <class S, class T>
TG_HD MetricInvariants<S> pullback_metric(const S& g00, const S& g01, const S& g11, const RestTriangle<T>& r) {
  const T* m = r.rest_inverse;  // [[m0, m1], [m2, m3]]
  const S gm00 = g00 * m[0] + g01 * m[2], gm01 = g00 * m[1] + g01 * m[3];
  const S gm10 = g01 * m[0] + g11 * m[2], gm11 = g01 * m[1] + g11 * m[3];
  const S c00 = gm00 * m[0] + gm10 * m[2], c11 = gm01 * m[1] + gm11 * m[3];
  const S c01 = gm01 * m[0] + gm11 * m[2];
  return {c00 + c11, c00 * c11 - c01 * c01};
}

// Symmetric Dirichlet area (|J|^2 + |J^-1|^2) = area tr C (1 + 1 / det C) (2 x 2 C: |J^-1|^2 = tr C / det C);
// its minimum 4 area is reached at rotations.
template <class S, class T>
TG_HD S symmetric_dirichlet_from_gram(const S& g00, const S& g01, const S& g11, const RestTriangle<T>& r) {
  const MetricInvariants<S> c = pullback_metric(g00, g01, g11, r);
  return c.trace * (S(T(1)) + S(T(1)) / c.det) * r.area;
}

// Planar parameterization, K = 3, D = 2: +inf when the image triangle is inverted or degenerate.
template <class T>
struct SymmetricDirichlet {
  template <class S>
  TG_HD S operator()(const Vec<S, 6>& u, const RestTriangle<T>& r) const {
    const S a0 = u[2] - u[0], a1 = u[3] - u[1], b0 = u[4] - u[0], b1 = u[5] - u[1];
    if (!(a0 * b1 - a1 * b0 > T(0))) return S(T(INFINITY));
    return symmetric_dirichlet_from_gram(a0 * a0 + a1 * a1, a0 * b0 + a1 * b1, b0 * b0 + b1 * b1, r);
  }
};

// A triangle on the unit sphere in tangent-space coordinates: vertex k sits at
// normalize(base_k + u_k0 tangent_k0 + u_k1 tangent_k1), so u = 0 is the current point and steps retract onto
// the sphere by normalisation.
template <class T>
struct SphereTriangle {
  T base[3][3];
  T tangent[3][2][3];
  RestTriangle<T> rest;
};

template <class S, class T>
TG_HD Vec3<S> sphere_point(const Vec<S, 6>& u, const SphereTriangle<T>& t, int k) {
  Vec3<S> p;
  TG_UNROLL for (int c = 0; c < 3; ++c)
    p[c] = u[2 * k] * t.tangent[k][0][c] + u[2 * k + 1] * t.tangent[k][1][c] + t.base[k][c];
  return p / norm(p);
}

// The map from the rest triangle to the chord triangle (q0, q1, q2) of the sphere image: |J|^2 from the chord
// metric, and the Jacobian determinant from the chord's area projected on the tangent plane at its centroid, signed
// by the outward direction. Its sign is that of det(q0, q1, q2), and it reaches 0 both when the triangle degenerates
// and when it turns edge-on to the sphere, which is the path by which a spherical triangle inverts.
template <class S>
struct SphereMap {
  S trace, det;
};

template <class S, class T>
TG_HD SphereMap<S> sphere_map(const Vec<S, 6>& u, const SphereTriangle<T>& t) {
  const Vec3<S> q0 = sphere_point(u, t, 0), q1 = sphere_point(u, t, 1), q2 = sphere_point(u, t, 2);
  const Vec3<S> e1 = q1 - q0, e2 = q2 - q0, centre = q0 + q1 + q2;
  const S projected = dot(cross(e1, e2), centre) / norm(centre);  // twice the signed projected area
  return {pullback_metric(dot(e1, e1), dot(e1, e2), dot(e2, e2), t.rest).trace, projected * (T(0.5) / t.rest.area)};
}

// Symmetric Dirichlet area |J|^2 (1 + det^-2) of the sphere map, +inf when inverted (det <= 0). K = 3, D = 2.
template <class T>
struct SphericalSymmetricDirichlet {
  template <class S>
  TG_HD S operator()(const Vec<S, 6>& u, const SphereTriangle<T>& t) const {
    const SphereMap<S> m = sphere_map(u, t);
    if (!(m.det > T(0))) return S(T(INFINITY));
    return m.trace * (S(T(1)) + S(T(1)) / (m.det * m.det)) * t.rest.area;
  }
};

// Untangling (Garanzha et al. 2021, "Foldover-free maps in 50 lines of code"): finite for every
// configuration, with chi(D) = (D + sqrt(eps^2 + D^2)) / 2 in place of the Jacobian determinant D, so inverted
// triangles are pushed back while eps decreases: f = area (tr C / chi + lambda (D^2 + 1) / chi), on the sphere.
template <class T>
struct UntangleSphere {
  T epsilon = T(1e-1);
  T lambda = T(1);
  template <class S>
  TG_HD S operator()(const Vec<S, 6>& u, const SphereTriangle<T>& t) const {
    const SphereMap<S> m = sphere_map(u, t);
    const S chi = (m.det + sqrt(m.det * m.det + epsilon * epsilon)) * T(0.5);
    return (m.trace / chi + (m.det * m.det + T(1)) / chi * lambda) * t.rest.area;
  }
};

}  // namespace tilegrad::mesh
