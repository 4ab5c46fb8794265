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

// Discrete decisions of one path.
struct PathRecord {
  int hit[kMaxDepth];          // sphere at vertex b (-1: the path left the scene)
  int light[kMaxDepth];        // light sampled at vertex b (-1: none)
  bool light_used[kMaxDepth];  // its term was evaluated: the light is another sphere, faces the vertex and
                               // (Direct, Path) its shadow ray reached it
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
    record->light[b] = -1;
    record->light_used[b] = false;
    record->vertices = s >= 0 ? b + 1 : b;
    return s;
  }
  // candidate: the term is non-zero if the light is visible; shadow: test visibility from x along dir.
  TG_HD bool light_term(int b, int light, bool candidate, bool shadow, int from, const Vec3<T>& x, const Vec3<T>& dir) {
    bool used = candidate;
    if (used && shadow) {
      T t;
      used = closest_hit(*scene, x, dir, T(INFINITY), from, t) == light;
    }
    record->light[b] = light;
    record->light_used[b] = used;
    return used;
  }
};

// Replay pass: the decisions of a recorded path.
template <class T>
struct ReplayDecisions {
  const PathRecord* record;
  TG_HD int hit(int b, const Vec3<T>&, const Vec3<T>&, int) const { return record->hit[b]; }
  TG_HD bool light_term(int b, int, bool, bool, int, const Vec3<T>&, const Vec3<T>&) const {
    return record->light_used[b];
  }
};

template <class T>
TG_HD TG_INLINE int choose_light(const SceneView<T>& sc, float u) {
  const int k = static_cast<int>(u * static_cast<float>(sc.num_lights));
  return sc.lights[k < sc.num_lights ? k : sc.num_lights - 1];
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

// Radiance along the ray (o, d) of the given integrator, with at most min(depth, MAX_DEPTH) vertices
// (MAX_DEPTH lets a kernel drop the bounce code when it renders a single vertex). Geometry is carried in
// the geometric scalar G, radiance in S (see params.h).
template <int MAX_DEPTH, class S, class Decisions>
TG_HD Vec3<S> path_radiance(const Params<S>& P, Integrator integrator, int depth, const Rng& rng,
                            const Vec3<scalar_of_t<S>>& o, const Vec3<scalar_of_t<S>>& d, Decisions& dec) {
  using T = scalar_of_t<S>;
  using G = geometry_t<S>;
  const SceneView<T>& sc = *P.scene;
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
    if (b == 0 || !sc.is_light(s)) L += hadamard(beta, P.emission(s));
    if (sc.num_lights > 0) {
      const int l = choose_light(sc, rng.vertex(b, kDimLightChoice));
      if (l != s) {
        const Vec3<G> cl = P.center(l);
        const G rl = P.radius(l);
        const T lights = static_cast<T>(sc.num_lights);  // 1 / probability of choosing this light
        G g;  // geometric factor of the light's contribution
        bool used;
        if (integrator == Integrator::Primary) {
          // Closed-form irradiance of a sphere light above the horizon, no visibility: E = pi Le (r/d)^2 cos.
          const Vec3<G> f = cl - x;
          const G dist2 = dot(f, f);
          const G cos_l = dot(n, f) * rsqrt(dist2);
          const bool candidate = value(cos_l) > T(0) && value(dist2) > value(rl * rl);
          used = dec.light_term(b, l, candidate, false, s, values_of(x), values_of(f));
          if (used) g = rl * rl / dist2 * cos_l * lights;
        } else {
          const ConeSample<G> cone = sample_sphere_cone(x, cl, rl, rng.vertex(b, kDimConeU), rng.vertex(b, kDimConeV));
          const G cos_l = dot(n, cone.direction);
          const bool candidate = cone.valid && value(cos_l) > T(0);
          used = dec.light_term(b, l, candidate, true, s, values_of(x), values_of(cone.direction));
          if (used) g = cos_l * cone.inv_pdf * (lights / T(kPi));  // Lambertian BRDF albedo / pi, pdf 1 / inv_pdf
        }
        if (used) L += hadamard(hadamard(beta, albedo), P.emission(l)) * promote<S>(g);
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
