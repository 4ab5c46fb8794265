// The per-sample radiance estimator, written once over the scalar. A value pass (S = T) traces the path:
// it traverses the hierarchy and records every discrete decision (which sphere is hit, whether a light is
// visible). A replay pass (S = dual) re-evaluates the same path from the record and the same random numbers,
// so its derivatives are those of this very sample (the interior term); nothing else is stored.
#pragma once
#include "tilegrad/pathtracer/bvh.h"
#include "tilegrad/pathtracer/params.h"
#include "tilegrad/pathtracer/rng.h"
#include "tilegrad/pathtracer/sampling.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::pathtracer {

static_assert(kDimVertex + kDimsPerVertex * kMaxDepth <= kDimDormant, "dormant-light numbers follow the vertices'");

// A vertex's light samples: the light (forward and backward) and the dormant light (backward only).
inline constexpr int kLightSlots = 2;
enum LightSlot : int { kLightSlot = 0, kDormantSlot = 1 };

// Discrete decisions of one path.
struct PathRecord {
  int hit[kMaxDepth];                      // sphere at vertex b (-1: the path left the scene)
  int light[kLightSlots][kMaxDepth];       // sphere sampled in each slot at vertex b (-1: none)
  bool light_used[kLightSlots][kMaxDepth]; // its term was evaluated: the light is another sphere, faces the
                                           // vertex and (Direct, Path) its shadow ray reached it
  int vertices = 0;
};

// Value pass: decides by tracing. The first hit can be given instead (edge samples: the silhouette sphere
// itself, or whatever lies behind it).
template <class T>
struct TraceDecisions {
  const SceneView<T>* scene;
  PathRecord* record;
  bool given_first = false;
  int first_sphere = -1;

  TG_HD int hit(int b, const Vec3<T>& o, const Vec3<T>& d, int exclude) {
    T t;
    const int s = (b == 0 && given_first) ? first_sphere : closest_hit(*scene, o, d, T(INFINITY), exclude, t);
    record->hit[b] = s;
    TG_UNROLL for (int k = 0; k < kLightSlots; ++k) {
      record->light[k][b] = -1;
      record->light_used[k][b] = false;
    }
    record->vertices = s >= 0 ? b + 1 : b;
    return s;
  }
  // candidate: the term is non-zero if the light is visible; shadow: test visibility from x along dir.
  TG_HD bool light_term(int b, int slot, int light, bool candidate, bool shadow, int from, const Vec3<T>& x,
                        const Vec3<T>& dir) {
    bool used = candidate;
    if (used && shadow) {
      T t;
      used = closest_hit(*scene, x, dir, T(INFINITY), from, t) == light;
    }
    record->light[slot][b] = light;
    record->light_used[slot][b] = used;
    return used;
  }
};

// Replay pass: the decisions of a recorded path.
template <class T>
struct ReplayDecisions {
  const PathRecord* record;
  TG_HD int hit(int b, const Vec3<T>&, const Vec3<T>&, int) const { return record->hit[b]; }
  TG_HD bool light_term(int b, int slot, int, bool, bool, int, const Vec3<T>&, const Vec3<T>&) const {
    return record->light_used[slot][b];
  }
};

// One of `count` (> 0) listed lights, uniformly.
TG_HD TG_INLINE int choose_light(const std::int32_t* lights, int count, float u) {
  const int k = static_cast<int>(u * static_cast<float>(count));
  return lights[k < count ? k : count - 1];
}

// Point o + t d for a ray whose scalar R may be a constant.
template <class S, class R>
TG_HD TG_INLINE Vec3<S> ray_point(const Vec3<R>& o, const Vec3<R>& d, const S& t) {
  return {{t * d[0] + o[0], t * d[1] + o[1], t * d[2] + o[2]}};
}

// Vertex b of a path: intersection with the decided sphere, for a ray whose scalar R is T (camera ray) or
// the geometric scalar G.
template <class S, class R>
TG_HD bool path_vertex(const Params<S>& P, int s, const Vec3<R>& o, const Vec3<R>& d, Vec3<geometry_t<S>>& x,
                       Vec3<geometry_t<S>>& n) {
  using T = scalar_of_t<S>;
  using G = geometry_t<S>;
  const Vec3<G> c = P.center(s);
  const G r = P.radius(s);
  G t;
  if (!ray_sphere(o, d, c, r, T(0), T(INFINITY), t, /*clamp_grazing=*/true)) return false;
  x = ray_point(o, d, t);
  n = sphere_normal(x, c, r);
  return true;
}

// Next-event estimate at vertex b (point x, normal n, on sphere s) of light l, chosen with probability
// 1 / count, with the cone numbers (u, v): returns the geometric factor g of its contribution
// beta x albedo x Le_l x g, or false when the term is not evaluated (see PathRecord::light_used).
template <class S, class T, class Decisions>
TG_HD TG_INLINE bool light_factor(const Params<S>& P, Integrator integrator, int b, int slot, int s, int l, T count,
                                  float u, float v, const Vec3<geometry_t<S>>& x, const Vec3<geometry_t<S>>& n,
                                  Decisions& dec, geometry_t<S>& g) {
  using G = geometry_t<S>;
  const Vec3<G> cl = P.center(l);
  const G rl = P.radius(l);
  bool used;
  if (integrator == Integrator::Primary) {
    // Closed-form irradiance of a sphere light above the horizon, no visibility: E = pi Le (r/d)^2 cos.
    const Vec3<G> f = cl - x;
    const G dist2 = dot(f, f);
    const G cos_l = dot(n, f) * rsqrt(dist2);
    const bool candidate = value(cos_l) > T(0) && value(dist2) > value(rl * rl);
    used = dec.light_term(b, slot, l, candidate, false, s, values_of(x), values_of(f));
    if (used) g = rl * rl / dist2 * cos_l * count;
  } else {
    const ConeSample<G> cone = sample_sphere_cone(x, cl, rl, u, v);
    const G cos_l = dot(n, cone.direction);
    const bool candidate = cone.valid && value(cos_l) > T(0);
    used = dec.light_term(b, slot, l, candidate, true, s, values_of(x), values_of(cone.direction));
    if (used) g = cos_l * cone.inv_pdf * (count / T(kPi));  // Lambertian BRDF albedo / pi, pdf 1 / inv_pdf
  }
  return used;
}

// Radiance along the ray (o, d) of the given integrator, with at most min(depth, MAX_DEPTH) vertices
// (MAX_DEPTH lets a kernel drop the bounce code when it renders a single vertex). Geometry is carried in
// the geometric scalar G, radiance in S (see params.h).
//
// DORMANT (the backward's estimator, with sc.num_dormant > 0): every sphere is a light. Besides the light
// sample each vertex samples one dormant light (a sphere of zero emission, chosen uniformly, with numbers of
// its own); its term is beta x albedo x Le x g with Le = 0, so the value is that of the forward to the bit,
// and its derivative with respect to that sphere's emission is the light the sphere would cast. Emission
// reached by a bounce then counts for no sphere (it is zero for the dormant ones), as for lights.
template <int MAX_DEPTH, bool DORMANT = false, class S, class Decisions>
TG_HD Vec3<S> path_radiance(const Params<S>& P, Integrator integrator, int depth, const Rng& rng,
                            const Vec3<scalar_of_t<S>>& o, const Vec3<scalar_of_t<S>>& d, Decisions& dec) {
  using T = scalar_of_t<S>;
  using G = geometry_t<S>;
  const SceneView<T>& sc = *P.scene;
  const bool dormant = DORMANT && sc.num_dormant > 0;
  Vec3<S> L = Vec3<S>::zero(), beta = Vec3<S>::filled(S(T(1)));
  Vec3<G> ro, rd;  // rays after the first bounce depend on the parameters
  int prev = -1;
  for (int b = 0; b < MAX_DEPTH && b < depth; ++b) {
    const int s = dec.hit(b, b == 0 ? o : values_of(ro), b == 0 ? d : values_of(rd), prev);
    if (s < 0) break;
    Vec3<G> x, n;
    if (!(b == 0 ? path_vertex(P, s, o, d, x, n) : path_vertex(P, s, ro, rd, x, n))) break;
    const Vec3<S> albedo = P.albedo(s);
    // Emission reached by a bounce is counted only for non-lights: lights are reached by next-event estimation.
    if (b == 0 || !(dormant || sc.is_light(s))) L += hadamard(beta, P.emission(s));
    if (sc.num_lights > 0) {
      const int l = choose_light(sc.lights, sc.num_lights, rng.vertex(b, kDimLightChoice));
      G g;
      if (l != s && light_factor(P, integrator, b, kLightSlot, s, l, static_cast<T>(sc.num_lights),
                                 rng.vertex(b, kDimConeU), rng.vertex(b, kDimConeV), x, n, dec, g))
        L += hadamard(hadamard(beta, albedo), P.emission(l)) * promote<S>(g);
    }
    if constexpr (DORMANT) {
      if (dormant) {
        const int l = choose_light(sc.dormant, sc.num_dormant, rng.dormant(b, kDimLightChoice));
        G g;
        if (l != s && light_factor(P, integrator, b, kDormantSlot, s, l, static_cast<T>(sc.num_dormant),
                                   rng.dormant(b, kDimConeU), rng.dormant(b, kDimConeV), x, n, dec, g))
          L += hadamard(hadamard(beta, albedo), P.emission(l)) * promote<S>(g);
      }
    }
    if (b + 1 < MAX_DEPTH && b + 1 < depth) {
      rd = sample_cosine_hemisphere(n, rng.vertex(b, kDimBounceU), rng.vertex(b, kDimBounceV));
      ro = x;
      beta = hadamard(beta, albedo);
      prev = s;
    }
  }
  return L;
}

}  // namespace tilegrad::pathtracer
