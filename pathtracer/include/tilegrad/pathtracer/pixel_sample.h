// One (pixel, sample) of the image: the value pass (radiance, recorded decisions, the spheres the sample
// depends on) and, per such sphere, its interior gradient row from a dual replay. Host and device.
#pragma once
#include "tilegrad/pathtracer/estimator.h"
#include "tilegrad/pathtracer/soft_visibility.h"

namespace tilegrad::pathtracer {

// Spheres one hard sample can depend on: the sphere and the light samples of each vertex.
inline constexpr int kMaxInvolved = (1 + kLightSlots) * kMaxDepth;
static_assert(kMaxSoftSpheres >= kMaxInvolved, "soft samples list every sphere");

// Contributions a sample produces at most under these settings (a bound uniform over a warp); dormant: the
// backward samples dormant lights (SceneView::num_dormant > 0), one more sphere per vertex.
TG_HD TG_INLINE int max_involved(const RenderSettings& st, int num_spheres, bool dormant = false) {
  if (st.soft) return num_spheres < kMaxSoftSpheres ? num_spheres : kMaxSoftSpheres;
  return (dormant ? 1 + kLightSlots : 2) * path_depth(st);
}

template <class T>
struct PixelSample {
  using Grad = Dual<T, kSphereParams>;

  PathRecord record;
  Rng rng;
  Vec3<T> origin, direction;
  int count = 0;              // spheres this sample depends on
  bool soft = false;          // soft visibility: every sphere, ids 0..count-1
  int ids[kMaxInvolved];      // hard visibility: their ids

  // Value pass; returns the sample's radiance. SOFT, MAX_DEPTH and DORMANT select code at compile time:
  // kernels instantiate each apart (soft visibility keeps per-sphere arrays, paths the bounce code, the
  // backward's estimator the dormant-light samples, which a single-vertex hard kernel should not carry).
  template <bool SOFT, int MAX_DEPTH, bool DORMANT = false>
  TG_HD Vec3<T> trace_as(const SceneView<T>& sc, const RenderSettings& st, int px, int py, int sample) {
    const int pixel = py * sc.camera.width + px;
    rng = make_rng(st.seed, RngStream::Pixel, static_cast<std::uint32_t>(pixel), static_cast<std::uint32_t>(sample));
    const T x = T(px) + T(rng.uniform(kDimPixelX)), y = T(py) + T(rng.uniform(kDimPixelY));
    origin = sc.camera.position;
    direction = camera_direction(sc.camera, x, y);
    const Params<T> P{&sc, -1};
    soft = SOFT;
    if constexpr (SOFT) {
      count = max_involved(st, sc.num_spheres);
      return soft_radiance(P, st, origin, direction);
    } else {
      TraceDecisions<T> dec{&sc, &record};
      record.vertices = 0;
      const Vec3<T> L = path_radiance<MAX_DEPTH, DORMANT>(P, st.integrator, path_depth(st), rng, origin, direction, dec);
      count = 0;
      for (int b = 0; b < record.vertices; ++b) {
        add(record.hit[b]);
        TG_UNROLL for (int k = 0; k < kLightSlots; ++k)
          if (record.light_used[k][b]) add(record.light[k][b]);
      }
      return L;
    }
  }

  TG_HD int sphere(int k) const { return soft ? k : ids[k]; }

  // row[j] = weight * sum_c adjoint[c] d L[c] / d theta_j for the k-th sphere's 10 parameters.
  template <bool SOFT, int MAX_DEPTH, bool DORMANT = false>
  TG_HD void gradient_row_as(const SceneView<T>& sc, const RenderSettings& st, int k, const Vec3<T>& adjoint,
                             T weight, T* row) const {
    const Params<Grad> P{&sc, sphere(k)};
    Vec3<Grad> L;
    if constexpr (SOFT) {
      L = soft_radiance(P, st, origin, direction);
    } else {
      ReplayDecisions<T> dec{&record};
      L = path_radiance<MAX_DEPTH, DORMANT>(P, st.integrator, path_depth(st), rng, origin, direction, dec);
    }
    contract_row(L, adjoint, weight, row);
  }

  // The same with the visibility model chosen at run time (CPU loops); dormant lights when the view lists them.
  TG_HD Vec3<T> trace(const SceneView<T>& sc, const RenderSettings& st, int px, int py, int sample) {
    if (st.soft) return trace_as<true, 1>(sc, st, px, py, sample);
    if (sc.num_dormant > 0) return trace_as<false, kMaxDepth, true>(sc, st, px, py, sample);
    if (path_depth(st) == 1) return trace_as<false, 1>(sc, st, px, py, sample);
    return trace_as<false, kMaxDepth>(sc, st, px, py, sample);
  }
  TG_HD void gradient_row(const SceneView<T>& sc, const RenderSettings& st, int k, const Vec3<T>& adjoint, T weight,
                          T* row) const {
    if (st.soft) {
      gradient_row_as<true, 1>(sc, st, k, adjoint, weight, row);
    } else if (sc.num_dormant > 0) {
      gradient_row_as<false, kMaxDepth, true>(sc, st, k, adjoint, weight, row);
    } else if (path_depth(st) == 1) {
      gradient_row_as<false, 1>(sc, st, k, adjoint, weight, row);
    } else {
      gradient_row_as<false, kMaxDepth>(sc, st, k, adjoint, weight, row);
    }
  }

 private:
  TG_HD void add(int id) {
    for (int i = 0; i < count; ++i)
      if (ids[i] == id) return;
    ids[count++] = id;
  }
};

}  // namespace tilegrad::pathtracer
