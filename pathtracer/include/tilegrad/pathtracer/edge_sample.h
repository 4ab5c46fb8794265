// One edge sample of the boundary term: a point on a visibility edge (a silhouette, or the curve where two
// spheres meet), the radiance jump across it, and the gradient rows of the one or two spheres whose
// parameters move it. Host and device.
//
// For a pixel-filtered image, d(sum_p adjoint_p . I_p)/dtheta gains the edge integral of
// adjoint(x) . (L_front - L_back) (dh/dtheta) / |grad_x h| dl, with h > 0 on the front side. The curve is
// parametrized by the angle phi on its 3D circle, sampled uniformly and stratified over `count` samples, so
// dl = |dx/dphi| dphi and each sample weighs 2 pi / count.
#pragma once
#include <cstdint>

#include "tilegrad/pathtracer/edge_curves.h"

namespace tilegrad::pathtracer {

struct EdgeCurve {
  std::int32_t a = 0, b = -1;       // silhouette of a (b = -1), or the intersection of spheres a < b
  std::uint32_t first = 0, count = 0;  // its samples are [first, first + count) of all edge samples
  std::uint32_t row_a = 0, row_b = 0;  // Owned: rows of its chunks in a's and b's segments
};

// Owned: the samples of all curves are cut into aligned chunks of kEdgeChunk consecutive samples (one warp of
// the CUDA edge pass); a curve has one row per chunk it touches in each of its spheres' segments, holding the
// sum of its samples in that chunk.
inline constexpr std::uint32_t kEdgeChunk = 32;
// Chunk of the curve's k-th sample, counted from the curve's first chunk.
TG_HD inline std::uint32_t edge_chunk(const EdgeCurve& e, std::uint32_t k) {
  return (e.first + k) / kEdgeChunk - e.first / kEdgeChunk;
}
TG_HD inline std::uint32_t edge_chunks(const EdgeCurve& e) { return e.count == 0 ? 0 : edge_chunk(e, e.count - 1) + 1; }

template <class T>
struct EdgeRows {
  bool has_a = false, has_b = false;
  T a[kSphereParams], b[kSphereParams];
};

namespace detail {

// Curve point at angle phi with phi as the one dual variable (for |dx/dphi|).
template <class T>
TG_HD Vec3<Dual<T, 1>> curve_point(const SceneView<T>& sc, const EdgeCurve& e, T phi) {
  using D1 = Dual<T, 1>;
  const D1 p = D1::variable(phi, 0);
  const Vec3<D1> ca = sc.center(e.a).template cast<D1>();
  const D1 ra(sc.radius(e.a));
  if (e.b < 0) return silhouette_point(ca, ra, sc.camera.position, p);
  const IntersectionCircle<D1> k = intersection_circle(ca, ra, sc.center(e.b).template cast<D1>(), D1(sc.radius(e.b)));
  return circle_point(k.center, k.axis, k.radius, p);
}

// d h / d(centre, radius) of sphere `seeded` (a or b) at image point (x, y).
template <class T>
TG_HD void edge_function_gradient(const SceneView<T>& sc, const EdgeCurve& e, T x, T y, int seeded, T* dh) {
  using D4 = Dual<T, 4>;
  auto lift = [&](int s) {
    const Vec3<T> c = sc.center(s);
    const bool on = s == seeded;
    return Vec3<D4>{{Lift<D4>::make(c[0], kCenterX, on), Lift<D4>::make(c[1], kCenterY, on),
                     Lift<D4>::make(c[2], kCenterZ, on)}};
  };
  const D4 ra = Lift<D4>::make(sc.radius(e.a), kRadius, e.a == seeded);
  const D4 h = e.b < 0 ? silhouette_function(sc.camera, D4(x), D4(y), lift(e.a), ra)
                       : intersection_function(sc.camera, D4(x), D4(y), lift(e.a), ra, lift(e.b),
                                               Lift<D4>::make(sc.radius(e.b), kRadius, e.b == seeded));
  for (int j = 0; j < 4; ++j) dh[j] = h.d[j];
}

// |grad_x h| at image point (x, y).
template <class T>
TG_HD T edge_function_slope(const SceneView<T>& sc, const EdgeCurve& e, T x, T y) {
  using D2 = Dual<T, 2>;
  const D2 X = D2::variable(x, 0), Y = D2::variable(y, 1);
  const Vec3<D2> ca = sc.center(e.a).template cast<D2>();
  const D2 h = e.b < 0 ? silhouette_function(sc.camera, X, Y, ca, D2(sc.radius(e.a)))
                       : intersection_function(sc.camera, X, Y, ca, D2(sc.radius(e.a)),
                                               sc.center(e.b).template cast<D2>(), D2(sc.radius(e.b)));
  return sqrt(h.d[0] * h.d[0] + h.d[1] * h.d[1]);
}

}  // namespace detail

// Sample k of curve e for the image adjoint (rows of width x 3). Rows are written for the spheres whose
// parameters move the edge; nothing when the point is behind the camera, outside the image, hidden, or sees
// no radiance jump.
template <class T, class A>
TG_HD EdgeRows<T> edge_sample(const SceneView<T>& sc, const RenderSettings& st, const EdgeCurve& e, int k,
                              const A* adjoint) {
  EdgeRows<T> out;
  const CameraT<T>& cam = sc.camera;
  const Vec3<T> o = cam.position;
  const Vec3<T> oa = sc.center(e.a) - o;
  if (!(dot(oa, oa) > sc.radius(e.a) * sc.radius(e.a))) return out;  // the camera is inside a
  if (e.b >= 0) {
    const Vec3<T> ob = sc.center(e.b) - o;
    if (!(dot(ob, ob) > sc.radius(e.b) * sc.radius(e.b))) return out;
  }
  // Silhouette samples are keyed by the sphere, intersection samples by both spheres.
  const std::uint32_t key = e.b < 0 ? static_cast<std::uint32_t>(e.a)
                                    : 0x80000000u ^ (static_cast<std::uint32_t>(e.a) * 0x9E3779B1u + static_cast<std::uint32_t>(e.b));
  const Rng rng = make_rng(st.seed, RngStream::Edge, key, static_cast<std::uint32_t>(k));
  const T phi = T(2 * kPi) * (T(k) + T(rng.uniform(kDimEdgePhi))) / T(e.count);

  // Point, image position and |dx/dphi|.
  const Vec3<Dual<T, 1>> P1 = detail::curve_point(sc, e, phi);
  const Vec3<Dual<T, 1>> pc = to_camera(cam, P1);
  if (!(pc[2].v > T(1e-6) * sc.radius(e.a))) return out;
  const Vec2<Dual<T, 1>> x1 = project_camera(cam, pc);
  const T x = x1[0].v, y = x1[1].v;
  if (!(x >= T(0) && y >= T(0) && x < T(cam.width) && y < T(cam.height))) return out;
  const int px = static_cast<int>(x), py = static_cast<int>(y);
  const A* g_ptr = adjoint + (static_cast<std::size_t>(py) * cam.width + px) * 3;
  const Vec3<T> g = {{T(g_ptr[0]), T(g_ptr[1]), T(g_ptr[2])}};
  if (g[0] == T(0) && g[1] == T(0) && g[2] == T(0)) return out;
  const T speed_phi = sqrt(x1[0].d[0] * x1[0].d[0] + x1[1].d[0] * x1[1].d[0]);

  // The ray through the edge point must reach it first: nothing else before it, and for an intersection
  // curve neither sphere's own surface before it (P on a far side).
  const Vec3<T> P = values_of(P1);
  const Vec3<T> to_p = P - o;
  const T dist_p = norm(to_p);
  const Vec3<T> d = to_p / dist_p;
  const T before = dist_p * (T(1) - T(1e-4));  // rounding margin of the point itself
  T t_other;
  const int other = closest_hit(sc, o, d, T(INFINITY), e.a, t_other, e.b);
  if (other >= 0 && t_other < (e.b < 0 ? dist_p : before)) return out;
  if (e.b >= 0) {
    T t;
    if (ray_sphere(o, d, sc.center(e.a), sc.radius(e.a), T(0), before, t)) return out;
    if (ray_sphere(o, d, sc.center(e.b), sc.radius(e.b), T(0), before, t)) return out;
  }

  // Radiance on both sides, with the same random numbers so that the difference has low variance.
  const Params<T> P0{&sc, -1};
  PathRecord rec;
  TraceDecisions<T> front{&sc, &rec, true, e.a};
  const Vec3<T> L_front = path_radiance<kMaxDepth>(P0, st.integrator, path_depth(st), rng, o, d, front);
  TraceDecisions<T> back{&sc, &rec, true, e.b >= 0 ? e.b : other};
  const Vec3<T> L_back = path_radiance<kMaxDepth>(P0, st.integrator, path_depth(st), rng, o, d, back);
  const T jump = dot(g, L_front - L_back);
  if (jump == T(0)) return out;

  const T slope = detail::edge_function_slope(sc, e, x, y);
  if (!(slope > T(0))) return out;
  const T scale = jump * speed_phi * (T(2 * kPi) / T(e.count)) / slope;
  T dh[4];
  detail::edge_function_gradient(sc, e, x, y, e.a, dh);
  for (int j = 0; j < kSphereParams; ++j) out.a[j] = j < 4 ? scale * dh[j] : T(0);
  out.has_a = true;
  if (e.b >= 0) {
    detail::edge_function_gradient(sc, e, x, y, e.b, dh);
    for (int j = 0; j < kSphereParams; ++j) out.b[j] = j < 4 ? scale * dh[j] : T(0);
    out.has_b = true;
  }
  return out;
}

}  // namespace tilegrad::pathtracer
