// Front-to-back compositing, one fragment at a time, and its backward: the blend step of both backends.
//
// A pixel composites the fragments of its tile in depth order: alpha_i = min(max_alpha, opacity_i w_i) with
// w_i = exp(power_i) the 2D Gaussian's weight at the pixel, colour = sum_i c_i alpha_i T_i + T_n background,
// T_i = prod_{j < i} (1 - alpha_j), until T would fall below min_transmittance (settings.h).
// The backward walks the same fragments back to front (the reverse sweep): from the final transmittance and what
// was composited behind each fragment it finds dL/dalpha_i and the colour/depth gradients, then the local
// derivatives of alpha_i with respect to the splat (mean2d, conic, opacity).
#pragma once
#include "tilegrad/ad/dual.h"
#include "tilegrad/ad/functions.h"
#include "tilegrad/core/vec.h"
#include "tilegrad/rasterizer/element/record.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster {

template <class T>
struct Fragment {
  T dx, dy;    // mean2d minus the pixel centre
  T weight;    // exp(power)
  T alpha;     // min(max_alpha, opacity * weight)
  bool clamped;  // alpha hit max_alpha (its derivative w.r.t. opacity and the conic is then zero)
  bool used;     // passes the power <= 0 and alpha >= min_alpha tests
};

// Pixel centre (px, py) = (x + 0.5, y + 0.5). S: a scalar, or a Dual (fragment_vjp_dual).
template <class S>
TG_HD Fragment<S> fragment_at(const Splat<S>& s, scalar_of_t<S> px, scalar_of_t<S> py, const Thresholds& th) {
  using T = scalar_of_t<S>;
  Fragment<S> f;
  f.dx = s.u - px;
  f.dy = s.v - py;
  const S power = T(-0.5) * (s.a * f.dx * f.dx + s.c * f.dy * f.dy) - s.b * f.dx * f.dy;
  f.weight = exp(power);
  const S raw = s.opacity * f.weight;
  f.clamped = raw > T(th.max_alpha);
  f.alpha = f.clamped ? S(T(th.max_alpha)) : raw;
  // power > 0 means a non-positive-definite conic (numerical trouble): skip as 3DGS does.
  f.used = !(power > T(0)) && !(f.alpha < T(th.min_alpha));
  return f;
}

// Colour (x, y, z) and depth (w) of a projection record: what a fragment composites.
template <class T>
TG_HD Vec4<T> color_depth_of(const T* record) {
  return {{record[kRed], record[kGreen], record[kBlue], record[kDepth]}};
}

// A pixel's front-to-back state.
template <class T>
struct Composite {
  T trans = T(1);                  // transmittance in front of the next fragment
  T rgb[3] = {T(0), T(0), T(0)};  // colour composited so far
  T depth = T(0);                  // sum of weight * depth
};

// Composites a used fragment (f.used) of colour and depth cd. Returns false, compositing nothing, when the
// transmittance would fall below min_transmittance: the pixel is finished.
template <class T>
TG_HD bool composite(Composite<T>& p, const Fragment<T>& f, const Vec4<T>& cd, const Thresholds& th) {
  const T next = p.trans * (T(1) - f.alpha);
  if (next < T(th.min_transmittance)) return false;
  const T w = f.alpha * p.trans;
  p.rgb[0] += w * cd[0];
  p.rgb[1] += w * cd[1];
  p.rgb[2] += w * cd[2];
  p.depth += w * cd[3];
  p.trans = next;
  return true;
}

// One pixel's reverse sweep: its loss gradients and what it has passed so far.
template <class T>
struct ReverseSweep {
  T px, py;
  T t_final;                                   // transmittance after the last contributor
  T d_rgb[3] = {T(0), T(0), T(0)}, d_alpha_out = T(0), d_depth = T(0), d_background = T(0);
  // (dL/dalpha_out - dL/dbackground) t_final: through the pixel's alpha and background every fragment's
  // dL/dalpha_i gains this over (1 - alpha_i).
  T outside = T(0);
  // outside is zero (no loss on alpha, black background): the quotient is that zero and the division is skipped.
  // A backend may clear it for a group of pixels that run in lockstep (a warp) where some have a non-zero
  // term: both ways give the same bits.
  bool outside_zero = true;
  T trans;                                     // transmittance in front of the current fragment
  T behind[4] = {T(0), T(0), T(0), T(0)};      // colour and depth composited behind it
};

// The sweep of pixel (x, y) from its final transmittance and its loss gradients dL/d(rgb, alpha, depth).
template <class T>
TG_HD ReverseSweep<T> start_sweep(int x, int y, T t_final, const Vec3<T>& d_rgb, T d_alpha, T d_depth,
                                  const float (&background)[3]) {
  ReverseSweep<T> p;
  p.px = T(x) + T(0.5);
  p.py = T(y) + T(0.5);
  p.t_final = t_final;
  TG_UNROLL for (int c = 0; c < 3; ++c) p.d_rgb[c] = d_rgb[c];
  p.d_alpha_out = d_alpha;
  p.d_depth = d_depth;
  p.d_background = p.d_rgb[0] * T(background[0]) + p.d_rgb[1] * T(background[1]) + p.d_rgb[2] * T(background[2]);
  p.outside = (p.d_alpha_out - p.d_background) * p.t_final;
  p.outside_zero = p.outside == T(0);
  p.trans = t_final;
  return p;
}

// Local derivatives of a used, unclamped fragment: dL/d(mean2d, conic, opacity) = d_alpha dalpha/d(...), written
// (not added) into record; with EXTRA also |dL/dmean2d|. Hand-derived from fragment_at: dalpha/dopacity = weight,
// dalpha/dpower = alpha; fragment_vjp_dual generates the same derivatives, and the tests hold the two together.
template <bool EXTRA, class T>
TG_HD void fragment_vjp(const Fragment<T>& f, const Splat<T>& s, T d_alpha, T* record) {
  record[kGradOpacity] = d_alpha * f.weight;
  const T d_power = d_alpha * f.alpha;
  const T d_u = -d_power * (s.a * f.dx + s.b * f.dy);
  const T d_v = -d_power * (s.c * f.dy + s.b * f.dx);
  record[kGradU] = d_u;
  record[kGradV] = d_v;
  if constexpr (EXTRA) {
    record[kGradAbsU] = abs(d_u);
    record[kGradAbsV] = abs(d_v);
  }
  record[kGradConicA] = T(-0.5) * d_power * f.dx * f.dx;
  record[kGradConicB] = -d_power * f.dx * f.dy;
  record[kGradConicC] = T(-0.5) * d_power * f.dy * f.dy;
}

// The same derivatives generated by the AD layer: dual numbers over (mean2d, conic, opacity) through fragment_at
// itself. Clamped or unused fragments get zeros (alpha is then constant in the splat). The reference of
// fragment_vjp (tests/rasterizer/test_blend.cpp); six partials per operation cost the CUDA blend backward's inner
// loop time, so the backends run fragment_vjp unless built with TILEGRAD_FRAGMENT_VJP_DUAL=1 (to measure that).
template <bool EXTRA, class T>
TG_HD void fragment_vjp_dual(const Splat<T>& s, T px, T py, const Thresholds& th, T d_alpha, T* record) {
  using D = Dual<T, 6>;
  const Splat<D> sd{D::variable(s.u, 0), D::variable(s.v, 1), D::variable(s.a, 2),
                    D::variable(s.b, 3), D::variable(s.c, 4), D::variable(s.opacity, 5)};
  const Fragment<D> f = fragment_at(sd, px, py, th);
  const int slot[6] = {kGradU, kGradV, kGradConicA, kGradConicB, kGradConicC, kGradOpacity};
  TG_UNROLL for (int i = 0; i < 6; ++i) record[slot[i]] = f.used ? d_alpha * f.alpha.d[i] : T(0);
  if constexpr (EXTRA) {
    record[kGradAbsU] = abs(record[kGradU]);
    record[kGradAbsV] = abs(record[kGradV]);
  }
}

// The sweep's two state updates at a used fragment (alpha, 1 - alpha), shared by fragment_backward and
// sweep_past so that both move the state by the same operations: the transmittance in front of the fragment,
// then the colour and depth composited behind what lies in front of it.
template <class T>
TG_HD TG_INLINE void step_transmittance(ReverseSweep<T>& p, T one_minus) {
  p.trans = p.trans / one_minus;
}
template <class T>
TG_HD TG_INLINE void step_behind(ReverseSweep<T>& p, T alpha, T one_minus, const Vec4<T>& cd) {
  TG_UNROLL for (int c = 0; c < 4; ++c) p.behind[c] = alpha * cd[c] + one_minus * p.behind[c];
}

// Moves the sweep in front of one fragment without its derivatives: the state fragment_backward leaves, the
// same bits. A backend that starts a pixel's sweep part-way through its depth list (depth chunks of a dense
// tile) replays the fragments behind the chunk so. Returns whether the fragment is used at this pixel.
// f: fragment_at of the splat at the sweep's pixel (a backend may evaluate several ahead, side by side).
template <class T>
TG_HD bool sweep_past(ReverseSweep<T>& p, const Fragment<T>& f, const Vec4<T>& cd) {
  if (!f.used) return false;
  const T one_minus = T(1) - f.alpha;
  step_transmittance(p, one_minus);
  step_behind(p, f.alpha, one_minus, cd);
  return true;
}
template <class T>
TG_HD bool sweep_past(ReverseSweep<T>& p, const Splat<T>& s, const Vec4<T>& cd, const Thresholds& th) {
  return sweep_past(p, fragment_at(s, p.px, p.py, th), cd);
}

// The backward of one fragment, back to front: writes (not adds) its gradient record, all of the first W
// components (kGrad2dCoreWidth or kGrad2dWidth), and moves the sweep in front of it. Returns false, touching
// nothing, when the fragment is not used at this pixel.
// f: fragment_at(s) at the sweep's pixel, as for sweep_past.
template <int W, class T>
TG_HD bool fragment_backward(ReverseSweep<T>& p, const Fragment<T>& f, const Splat<T>& s, const Vec4<T>& cd,
                             [[maybe_unused]] const Thresholds& th, T* record) {
  static_assert(W == kGrad2dCoreWidth || W == kGrad2dWidth, "records hold 9 or 12 values");
  constexpr bool kExtra = W == kGrad2dWidth;  // depth and |dL/dmean2d| as well
  if (!f.used) return false;
  const T one_minus = T(1) - f.alpha;
  step_transmittance(p, one_minus);
  const T weight = f.alpha * p.trans;
  T d_alpha = T(0);
  TG_UNROLL for (int c = 0; c < 3; ++c) {
    record[kGradColor + c] = weight * p.d_rgb[c];
    d_alpha += (cd[c] - p.behind[c]) * p.d_rgb[c];
  }
  if constexpr (kExtra) record[kGradDepth] = weight * p.d_depth;
  d_alpha += (cd[3] - p.behind[3]) * p.d_depth;
  // outside / (1 - alpha). When outside is +-0, outside * trans (trans now = the old trans / (1 - alpha) >= 0) has
  // the quotient's bits: the same signed zero for 1 - alpha > 0, NaN where 1 - alpha is 0 or NaN.
  const T outside = p.outside_zero ? p.outside * p.trans : p.outside / one_minus;
  d_alpha = d_alpha * p.trans + outside;
  step_behind(p, f.alpha, one_minus, cd);
#if TILEGRAD_FRAGMENT_VJP_DUAL
  // Measurement build (docs/PERFORMANCE.md): the generated derivatives in the backends' inner loops.
  fragment_vjp_dual<kExtra>(s, p.px, p.py, th, d_alpha, record);
#else
  if (!f.clamped) {
    fragment_vjp<kExtra>(f, s, d_alpha, record);
  } else {  // alpha = max_alpha: no dependence on opacity or the footprint
    for (int c : {kGradU, kGradV, kGradConicA, kGradConicB, kGradConicC, kGradOpacity}) record[c] = T(0);
    if constexpr (kExtra) record[kGradAbsU] = record[kGradAbsV] = T(0);
  }
#endif
  return true;
}

template <int W, class T>
TG_HD bool fragment_backward(ReverseSweep<T>& p, const Splat<T>& s, const Vec4<T>& cd, const Thresholds& th,
                             T* record) {
  return fragment_backward<W>(p, fragment_at(s, p.px, p.py, th), s, cd, th, record);
}

}  // namespace tilegrad::raster
