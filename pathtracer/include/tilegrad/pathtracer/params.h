// Sphere parameters as the estimator's scalars: plain values, or one sphere's parameters seeded as the
// variables of dual numbers (the others constant), so one evaluation yields that sphere's gradient row.
//
// Geometry (points, normals, directions, distances) depends only on centres and radii, so it is carried in
// a narrower dual, G = Dual<T, 4> (centre, radius), and widened to the radiometric scalar S = Dual<T, 10>
// only where it meets albedo or emission: most of the arithmetic runs on 5 floats instead of 11.
#pragma once
#include "tilegrad/ad/dual.h"
#include "tilegrad/pathtracer/scene_view.h"

namespace tilegrad::pathtracer {

// lift<S>(x, i, seeded): x as an S; the i-th dual variable when seeded and i < the dual's width.
template <class S>
struct Lift {
  template <class T>
  TG_HD static S make(T x, int, bool) {
    return S(x);
  }
};
template <class T, int N>
struct Lift<Dual<T, N>> {
  TG_HD static Dual<T, N> make(T x, int i, bool seeded) {
    return seeded && i < N ? Dual<T, N>::variable(x, i) : Dual<T, N>(x);
  }
};

// The geometric scalar that goes with a radiometric scalar S.
template <class S>
struct GeometryOf {
  using type = S;
};
template <class T, int N>
struct GeometryOf<Dual<T, N>> {
  using type = Dual<T, (N < kRadius + 1 ? N : kRadius + 1)>;
};
template <class S>
using geometry_t = typename GeometryOf<S>::type;

// A geometric value as the radiometric scalar (the first partials are the geometric ones).
template <class S>
struct Promote {
  TG_HD static S from(const S& g) { return g; }
};
template <class T, int N>
struct Promote<Dual<T, N>> {
  template <int M>
  TG_HD static Dual<T, N> from(const Dual<T, M>& g) {
    static_assert(M <= N, "a geometric dual is never wider than the radiometric one");
    Dual<T, N> r(g.v);
    TG_UNROLL for (int i = 0; i < M; ++i) r.d[i] = g.d[i];
    return r;
  }
};
template <class S, class G>
TG_HD TG_INLINE S promote(const G& g) {
  return Promote<S>::from(g);
}
template <class S, class G>
TG_HD TG_INLINE Vec3<S> promote(const Vec3<G>& g) {
  return {{promote<S>(g[0]), promote<S>(g[1]), promote<S>(g[2])}};
}

template <class S>
struct Params {
  using T = scalar_of_t<S>;
  using G = geometry_t<S>;
  const SceneView<T>* scene;
  int seeded = -1;  // sphere whose parameters are the variables, or -1

  TG_HD S get(int sphere, int param, T x) const { return Lift<S>::make(x, param, sphere == seeded); }
  TG_HD G get_geometry(int sphere, int param, T x) const { return Lift<G>::make(x, param, sphere == seeded); }
  TG_HD Vec3<G> center(int i) const {
    const SphereGeometry<T>& g = scene->geometry[i];
    return {{get_geometry(i, kCenterX, g.x), get_geometry(i, kCenterY, g.y), get_geometry(i, kCenterZ, g.z)}};
  }
  TG_HD G radius(int i) const { return get_geometry(i, kRadius, scene->geometry[i].r); }
  TG_HD Vec3<S> albedo(int i) const {
    const Vec3<T>& a = scene->material[i].albedo;
    return {{get(i, kAlbedoR, a[0]), get(i, kAlbedoG, a[1]), get(i, kAlbedoB, a[2])}};
  }
  TG_HD Vec3<S> emission(int i) const {
    const Vec3<T>& e = scene->material[i].emission;
    return {{get(i, kEmissionR, e[0]), get(i, kEmissionG, e[1]), get(i, kEmissionB, e[2])}};
  }
};

// Gradient row of the seeded sphere: row[j] = weight * sum_c adjoint[c] * d L[c] / d theta_j.
template <class T, int N>
TG_HD void contract_row(const Vec3<Dual<T, N>>& L, const Vec3<T>& adjoint, T weight, T* row) {
  TG_UNROLL for (int j = 0; j < N; ++j)
    row[j] = weight * (adjoint[0] * L[0].d[j] + adjoint[1] * L[1].d[j] + adjoint[2] * L[2].d[j]);
}

template <class T>
TG_HD TG_INLINE Vec3<T> values_of(const Vec3<T>& v) {
  return v;
}
template <class T, int N>
TG_HD TG_INLINE Vec3<T> values_of(const Vec3<Dual<T, N>>& v) {
  return {{v[0].v, v[1].v, v[2].v}};
}

}  // namespace tilegrad::pathtracer
