// Bounding volume hierarchy over the spheres: closest-hit traversal (host and device, any float scalar)
// and the host-side build.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/pathtracer/geometry.h"
#include "tilegrad/pathtracer/scene_view.h"

namespace tilegrad::pathtracer {

// Deep enough for any hierarchy the median-split build makes (depth <= log2(spheres) + 1).
inline constexpr int kBvhStack = 40;

// Entry distance of the ray into a node's box, or +inf when it misses it or enters beyond tmax.
template <class T>
TG_HD TG_INLINE T box_entry(const BvhNode& n, const Vec3<T>& o, const Vec3<T>& inv_d, T tmax) {
  T tn = T(0), tf = tmax;
  TG_UNROLL for (int i = 0; i < 3; ++i) {
    const T a = (T(n.lo[i]) - o[i]) * inv_d[i], b = (T(n.hi[i]) - o[i]) * inv_d[i];
    tn = max(tn, min(a, b));
    tf = min(tf, max(a, b));
  }
  return tn <= tf ? tn : T(INFINITY);
}

// Nearest sphere hit by o + t d (unit d) with 0 < t < tmax, ignoring spheres `exclude` (the one the ray
// leaves, or -1) and `exclude2`. Returns its id and sets t, or returns -1.
template <class T>
TG_HD int closest_hit(const SceneView<T>& sc, const Vec3<T>& o, const Vec3<T>& d, T tmax, int exclude, T& t,
                      int exclude2 = -1) {
  if (sc.num_nodes == 0) return -1;
  Vec3<T> inv_d;
  TG_UNROLL for (int i = 0; i < 3; ++i) {
    // A zero component would give 0 * inf = NaN in the slab test; a tiny one gives the right +-inf slabs.
    const T di = abs(d[i]) > T(1e-30) ? d[i] : (d[i] < T(0) ? T(-1e-30) : T(1e-30));
    inv_d[i] = T(1) / di;
  }
  int stack[kBvhStack];
  int sp = 0, node = 0, best = -1;
  T best_t = tmax;
  if (!(box_entry(sc.nodes[0], o, inv_d, best_t) < best_t)) return -1;
  for (;;) {
    const BvhNode n = sc.nodes[node];
    if (n.count > 0) {
      for (int k = n.first; k < n.first + n.count; ++k) {
        const int id = static_cast<int>(sc.order[k]);
        if (id == exclude || id == exclude2) continue;
        const SphereGeometry<T> g = sc.geometry[id];
        T th;
        if (ray_sphere(o, d, Vec3<T>{{g.x, g.y, g.z}}, g.r, T(0), best_t, th)) {
          best = id;
          best_t = th;
        }
      }
    } else {
      const T ta = box_entry(sc.nodes[n.first], o, inv_d, best_t);
      const T tb = box_entry(sc.nodes[n.first + 1], o, inv_d, best_t);
      const bool a_hit = ta < best_t, b_hit = tb < best_t;
      if (a_hit && b_hit) {
        const bool a_first = ta <= tb;
        if (sp < kBvhStack) stack[sp++] = a_first ? n.first + 1 : n.first;
        node = a_first ? n.first : n.first + 1;
        continue;
      }
      if (a_hit || b_hit) {
        node = a_hit ? n.first : n.first + 1;
        continue;
      }
    }
    // Pop the next node that can still hold a nearer hit.
    bool found = false;
    while (sp > 0 && !found) {
      node = stack[--sp];
      found = box_entry(sc.nodes[node], o, inv_d, best_t) < best_t;
    }
    if (!found) break;
  }
  t = best_t;
  return best;
}

// Host build (median split on the longest axis of the centroid box, up to 4 spheres per leaf).
struct Bvh {
  std::vector<BvhNode> nodes;
  std::vector<std::uint32_t> order;
};
template <class T>
Bvh build_bvh(const std::vector<SphereGeometry<T>>& spheres);

}  // namespace tilegrad::pathtracer
