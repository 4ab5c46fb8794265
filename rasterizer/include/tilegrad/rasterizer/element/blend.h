// One fragment of front-to-back compositing: the 2D Gaussian's weight at a pixel and its alpha, with the
// thresholds of settings.h. Shared by the CPU reference and the CUDA kernels, forward and backward.
#pragma once
#include "tilegrad/core/vec.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster {

// A projected Gaussian as compositing sees it.
template <class T>
struct Splat {
  T u, v;        // mean2d
  T a, b, c;     // conic
  T opacity;
};

template <class T>
struct Fragment {
  T dx, dy;    // mean2d minus the pixel centre
  T weight;    // exp(power)
  T alpha;     // min(max_alpha, opacity * weight)
  bool clamped;  // alpha hit max_alpha (its derivative w.r.t. opacity and the conic is then zero)
  bool used;     // passes the power <= 0 and alpha >= min_alpha tests
};

// Pixel centre (px, py) = (x + 0.5, y + 0.5).
template <class T>
TG_HD Fragment<T> fragment_at(const Splat<T>& s, T px, T py, const Thresholds& th) {
  Fragment<T> f;
  f.dx = s.u - px;
  f.dy = s.v - py;
  const T power = T(-0.5) * (s.a * f.dx * f.dx + s.c * f.dy * f.dy) - s.b * f.dx * f.dy;
  f.weight = exp(power);
  const T raw = s.opacity * f.weight;
  f.clamped = raw > T(th.max_alpha);
  f.alpha = f.clamped ? T(th.max_alpha) : raw;
  // power > 0 means a non-positive-definite conic (numerical trouble): skip as 3DGS does.
  f.used = !(power > T(0)) && !(f.alpha < T(th.min_alpha));
  return f;
}

}  // namespace tilegrad::raster
