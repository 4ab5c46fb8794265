// Soft visibility: a smooth image model in which finite differences and AD must agree everywhere, to test
// the derivative plumbing apart from discontinuities. Primary rays only; every sphere covers every ray by
//   alpha_i = sigmoid(-delta_i / softness) * sigmoid(t_i / softness),
// delta_i = (rho_i^2 - r_i^2) / (2 r_i) ~ the signed distance of the ray to the sphere (rho_i: distance of the
// centre to the ray line, t_i: depth of the closest approach), and spheres are blended in a smooth order:
//   L = sum_i alpha_i L_i prod_{j != i} (1 - alpha_j sigmoid((t_i - t_j) / depth_softness)).
// L_i = emission + albedo x unshadowed light from every other sphere, at a smoothed hit point. Every sphere
// is a light here (zero emission adds nothing but has a gradient), so the image is smooth in emission too.
#pragma once
#include "tilegrad/pathtracer/params.h"
#include "tilegrad/pathtracer/sampling.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::pathtracer {

template <class S>
TG_HD TG_INLINE S softplus(const S& x) {
  using T = scalar_of_t<S>;
  return x > T(30) ? x : log(T(1) + exp(x));
}

// max(x, 0) with a rounded corner of width k.
template <class S>
TG_HD TG_INLINE S smooth_positive(const S& x, scalar_of_t<S> k) {
  using T = scalar_of_t<S>;
  return (x + sqrt(x * x + k * k)) * T(0.5);
}

template <class S>
TG_HD Vec3<S> soft_radiance(const Params<S>& P, const RenderSettings& st, const Vec3<scalar_of_t<S>>& o,
                            const Vec3<scalar_of_t<S>>& d) {
  using T = scalar_of_t<S>;
  using G = geometry_t<S>;
  const SceneView<T>& sc = *P.scene;
  const int n = sc.num_spheres < kMaxSoftSpheres ? sc.num_spheres : kMaxSoftSpheres;
  const T sigma = T(st.softness), gamma = T(st.depth_softness);
  G alpha[kMaxSoftSpheres], depth[kMaxSoftSpheres];
  Vec3<S> Li[kMaxSoftSpheres];
  for (int i = 0; i < n; ++i) {
    const Vec3<G> c = P.center(i);
    const G r = P.radius(i);
    const Vec3<G> f = sub(c, o);
    const G t = dot_mixed(f, d);
    const Vec3<G> h = {{f[0] - t * d[0], f[1] - t * d[1], f[2] - t * d[2]}};
    const G rho2 = dot(h, h);
    const G delta = (rho2 - r * r) / (T(2) * r);
    alpha[i] = sigmoid(-delta / sigma) * sigmoid(t / sigma);
    depth[i] = t;
    // Smoothed half chord: the true one well inside the silhouette, continued smoothly outside it; the
    // 1e-6 floor keeps sqrt away from 0 where softplus underflows (rays far from the sphere).
    const G half_chord = sqrt((softplus((r * r - rho2) / (sigma * sigma)) + T(1e-6)) * (sigma * sigma));
    const Vec3<G> x = ray_point(o, d, t - half_chord);
    const Vec3<G> nrm = normalized(x - c);
    Vec3<S> L = P.emission(i);
    const Vec3<S> albedo = P.albedo(i);
    for (int l = 0; l < n; ++l) {
      if (l == i) continue;
      const Vec3<G> fl = P.center(l) - x;
      const G dist2 = dot(fl, fl);
      const G rl = P.radius(l);
      const G g = rl * rl / dist2 * smooth_positive(dot(nrm, fl) * rsqrt(dist2), T(0.05));
      L += hadamard(albedo, P.emission(l)) * promote<S>(g);
    }
    Li[i] = L;
  }
  Vec3<S> out = Vec3<S>::zero();
  for (int i = 0; i < n; ++i) {
    G w = alpha[i];
    for (int j = 0; j < n; ++j)
      if (j != i) w = w * (T(1) - alpha[j] * sigmoid((depth[i] - depth[j]) / gamma));
    out += Li[i] * promote<S>(w);
  }
  return out;
}

}  // namespace tilegrad::pathtracer
