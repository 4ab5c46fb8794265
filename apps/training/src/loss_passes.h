// Internal: the four separable passes of the loss and its gradient, one element (pixel, channel) at a time,
// shared by the CPU loops and the CUDA kernels. Planes are [H, W, 3] arrays like the image.
//
//   1. rows:    horizontal window sums of x, y, x^2, y^2, xy                     -> moments[5]
//   2. columns: vertical sums, SSIM and its partials scaled by dL/dSSIM          -> partials[3], values
//   3. rows:    horizontal window sums of the partials                           -> moments[0..2]
//   4. columns: vertical sums, dL/dx = G*A + 2 x G*B + y G*C + L1 term           -> grad
// Passes 3-4 apply the window's transpose (the same symmetric window with the same zero padding).
//
// With a valid-pixel mask, the loss is the same function of the image x~ that equals x on valid pixels and the
// target y elsewhere, averaged over the valid pixels only: masked pixels add nothing to L1, MSE or the SSIM
// mean, windows around valid pixels see the target there, and their gradient is zero.
//
// With a window (LossWindow: the pair is a crop of a larger image), only the valid pixels inside it count, the
// means are over the larger image's valid pixels, and pixels of the crop outside the window are still read by
// the SSIM windows of counted pixels (and get those terms' gradient).
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/training/element/ssim.h"

namespace tilegrad::training::detail {

template <class T>
struct LossArgs {
  int width = 0, height = 0;
  const T* image = nullptr;              // [H, W, 3]
  const std::uint8_t* target = nullptr;  // [H, W, 4] premultiplied
  T background[3] = {T(0), T(0), T(0)};
  T lambda = T(0.2);
  bool clamp_image = false;  // metrics: x clamped to [0, 1] (no gradient then)
  T* grad = nullptr;         // [H, W, 3], null: values only
  T* moments = nullptr;      // scratch [5][H, W, 3] (the CPU passes; the CUDA kernels keep tiles in shared memory)
  T* partials = nullptr;     // scratch [3][H, W, 3]
  SsimWindow<T> window{};
  const std::uint8_t* valid = nullptr;  // [H, W], 0: a masked pixel (null: none is masked)
  // Counted pixels [x0, x1) x [y0, y1) when windowed (a LossWindow; otherwise every pixel), less masked ones.
  bool windowed = false;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  // The element count of the means: 3 x the valid pixels (of the larger image with a window; elements() when
  // nothing is masked or windowed).
  std::size_t counted = 0;

  TG_HD std::size_t elements() const { return std::size_t(width) * height * 3; }
  TG_HD bool masked(std::size_t e) const { return valid && valid[e / 3] == 0; }
  TG_HD bool in_window(std::size_t e) const {
    if (!windowed) return true;
    const int px = int((e / 3) % width), py = int(e / (std::size_t(width) * 3));
    return px >= x0 && px < x1 && py >= y0 && py < y1;
  }
  TG_HD bool counts(std::size_t e) const { return !masked(e) && in_window(e); }
  TG_HD T x(std::size_t e) const {
    if (masked(e)) return y(e);
    return clamp_image ? clamp(image[e], T(0), T(1)) : image[e];
  }
  TG_HD T y(std::size_t e) const { return composite_target(target + (e / 3) * 4, int(e % 3), background); }
};

// Per-element sums the values are made of.
template <class T>
struct ElementSums {
  T abs_diff, ssim, sq_diff, counted;  // counted: 1 for an element that counts
};

// The window sums of x, y, x^2, y^2 and xy centred on i of a line of n (zero padding), in that order in m.
// at(j, x, y) gives the pair at position j of the line.
template <class T, class At>
TG_HD TG_INLINE void window_moments(const SsimWindow<T>& window, int i, int n, const At& at, T m[5]) {
  T sx = T(0), sy = T(0), sxx = T(0), syy = T(0), sxy = T(0);
  TG_UNROLL for (int k = 0; k < kSsimTaps; ++k) {
    const int j = i + k - kSsimRadius;
    if (j < 0 || j >= n) continue;
    T xv, yv;
    at(j, xv, yv);
    const T w = window.w[k];
    sx += w * xv;
    sy += w * yv;
    sxx += w * xv * xv;
    syy += w * yv * yv;
    sxy += w * xv * yv;
  }
  m[0] = sx;
  m[1] = sy;
  m[2] = sxx;
  m[3] = syy;
  m[4] = sxy;
}

template <class T>
TG_HD TG_INLINE void loss_rows_pass(const LossArgs<T>& a, std::size_t e) {
  const std::size_t n = a.elements();
  const int c = int(e % 3), px = int((e / 3) % a.width);
  const std::size_t row = e - std::size_t(px) * 3 - c;  // element index of (row, 0, 0)
  T m[5];
  window_moments(
      a.window, px, a.width,
      [&](int j, T& xv, T& yv) {
        const std::size_t idx = row + std::size_t(j) * 3 + c;
        xv = a.x(idx);
        yv = a.y(idx);
      },
      m);
  TG_UNROLL for (int q = 0; q < 5; ++q) a.moments[q * n + e] = m[q];
}

// Element e's SSIM from its 2D window moments m (pass 1 then 2): its partials scaled by dL/dSSIM (when the
// gradient is wanted) and its sums.
template <class T>
TG_HD TG_INLINE ElementSums<T> ssim_element(const LossArgs<T>& a, std::size_t e, const T m[5]) {
  const std::size_t n = a.elements();
  const SsimTerms<T> s = ssim_terms(m[0], m[1], m[2], m[3], m[4]);
  const bool counts = a.counts(e);
  if (a.grad) {
    const T scale = counts ? -a.lambda / T(a.counted) : T(0);  // dL/dSSIM(pixel)
    a.partials[e] = scale * s.d_mu_x;
    a.partials[n + e] = scale * s.d_exx;
    a.partials[2 * n + e] = scale * s.d_exy;
  }
  if (!counts) return {T(0), T(0), T(0), T(0)};
  const T d = a.x(e) - a.y(e);
  return {d < T(0) ? -d : d, s.value, d * d, T(1)};
}

// The vertical window sums at element e of the first Q planes of a.moments (passes 2 and 4).
template <int Q, class T>
TG_HD TG_INLINE void column_sums(const LossArgs<T>& a, std::size_t e, T out[Q]) {
  const std::size_t n = a.elements(), stride = std::size_t(a.width) * 3;
  const int py = int(e / stride);
  TG_UNROLL for (int q = 0; q < Q; ++q) {
    const T* plane = a.moments + q * n + (e - std::size_t(py) * stride);
    out[q] = window_sum(a.window, py, a.height, [&](int j) { return plane[std::size_t(j) * stride]; });
  }
}

template <class T>
TG_HD TG_INLINE ElementSums<T> loss_columns_pass(const LossArgs<T>& a, std::size_t e) {
  T m[5];
  column_sums<5>(a, e, m);
  return ssim_element(a, e, m);
}

template <class T>
TG_HD TG_INLINE void gradient_rows_pass(const LossArgs<T>& a, std::size_t e) {
  const std::size_t n = a.elements();
  const int c = int(e % 3), px = int((e / 3) % a.width);
  const std::size_t row = e - std::size_t(px) * 3 - c;
  TG_UNROLL for (int q = 0; q < 3; ++q) {
    const T* plane = a.partials + q * n + row + c;
    a.moments[q * n + e] = window_sum(a.window, px, a.width, [&](int j) { return plane[std::size_t(j) * 3]; });
  }
}

// Element e's gradient from the 2D window sums g of the three partial planes (pass 3 then 4).
template <class T>
TG_HD TG_INLINE void gradient_element(const LossArgs<T>& a, std::size_t e, const T g[3]) {
  const T xv = a.x(e), yv = a.y(e);
  if (a.masked(e)) {  // x~ is the target there: no gradient
    a.grad[e] = T(0);
    return;
  }
  // Pixels outside a window get only the SSIM terms of the counted pixels whose windows reach them.
  const T l1_scale = a.in_window(e) ? (T(1) - a.lambda) / T(a.counted) : T(0);
  a.grad[e] = g[0] + T(2) * xv * g[1] + yv * g[2] + l1_scale * abs_derivative(xv - yv);
}

template <class T>
TG_HD TG_INLINE void gradient_columns_pass(const LossArgs<T>& a, std::size_t e) {
  T g[3];
  column_sums<3>(a, e, g);
  gradient_element(a, e, g);
}

// The four LossValues from the totals of the element sums: the means are over n elements, of which `counted`
// count here (n without a window; with one, the loss's 1 - ssim is taken as counted / n - ssim, so that the
// values of the windows of a partition add up to the whole image's).
template <class T>
TG_HD TG_INLINE void finish_values(double abs_sum, double ssim_sum, double sq_sum, double counted, std::size_t n,
                                   T lambda, float* values) {
  const double inv = n > 0 ? 1.0 / double(n) : 0.0;
  const double l1 = abs_sum * inv, ssim = ssim_sum * inv;
  const double fraction = counted == double(n) ? 1.0 : counted / double(n);  // 1 without a window
  values[0] = float((1.0 - double(lambda)) * l1 + double(lambda) * (fraction - ssim));
  values[1] = float(l1);
  values[2] = float(ssim);
  values[3] = float(sq_sum * inv);
}

}  // namespace tilegrad::training::detail
