// CPU loops over the per-element code, shared by the float backend and the float/double reference:
// one pixel's radiance, one pixel's interior contributions, one sphere's edge samples.
#pragma once
#include <vector>

#include "tilegrad/pathtracer/pixel_sample.h"
#include "tilegrad/pathtracer/edge_sample.h"

namespace tilegrad::pathtracer::cpu_backend {

template <class T>
Vec3<T> pixel_radiance(const SceneView<T>& sc, const RenderSettings& st, int px, int py) {
  Vec3<T> sum = Vec3<T>::zero();
  for (int s = 0; s < st.spp; ++s) {
    PixelSample<T> ps;
    sum += ps.trace(sc, st, px, py, s);
  }
  return sum / T(st.spp);
}

// Calls f(sample, k, sphere, row) for every interior contribution of pixel (px, py); nothing when the
// pixel's adjoint is zero.
template <class T, class A, class F>
void pixel_contributions(const SceneView<T>& sc, const RenderSettings& st, int px, int py, const A* adjoint, F&& f) {
  const A* a = adjoint + (static_cast<std::size_t>(py) * sc.camera.width + px) * 3;
  const Vec3<T> g = {{T(a[0]), T(a[1]), T(a[2])}};
  if (g[0] == T(0) && g[1] == T(0) && g[2] == T(0)) return;
  const T weight = T(1) / T(st.spp);
  T row[kSphereParams];
  for (int s = 0; s < st.spp; ++s) {
    PixelSample<T> ps;
    ps.trace(sc, st, px, py, s);
    for (int k = 0; k < ps.count; ++k) {
      ps.gradient_row(sc, st, k, g, weight, row);
      f(s, k, ps.sphere(k), row);
    }
  }
}

// Calls f(k, rows) for every sample of edge curve e that has an effect.
template <class T, class A, class F>
void curve_contributions(const SceneView<T>& sc, const RenderSettings& st, const EdgeCurve& e, const A* adjoint,
                         F&& f) {
  for (std::uint32_t k = 0; k < e.count; ++k) {
    const EdgeRows<T> rows = edge_sample(sc, st, e, static_cast<int>(k), adjoint);
    if (rows.has_a || rows.has_b) f(k, rows);
  }
}

}  // namespace tilegrad::pathtracer::cpu_backend
