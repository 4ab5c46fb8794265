// Per-pixel math of the image loss, shared by the CPU and CUDA kernels: the separable 11x11 Gaussian window,
// targets composited on a background, SSIM from windowed moments with its partial derivatives.
#pragma once
#include <cmath>
#include <cstdint>

#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad::training {

constexpr int kSsimRadius = 5;  // 11x11 window
constexpr int kSsimTaps = 2 * kSsimRadius + 1;
constexpr double kSsimSigma = 1.5;
// Stabilisers for a dynamic range of 1: (0.01)^2 and (0.03)^2, the constants of Wang et al. (2004).
constexpr double kSsimC1 = 0.01 * 0.01;
constexpr double kSsimC2 = 0.03 * 0.03;

// Normalised 1D Gaussian taps (sigma 1.5); the 2D window is their outer product. Passed to kernels by value.
template <class T>
struct SsimWindow {
  T w[kSsimTaps];
};

template <class T>
SsimWindow<T> make_ssim_window() {
  double raw[kSsimTaps], total = 0.0;
  for (int k = 0; k < kSsimTaps; ++k) {
    const double d = k - kSsimRadius;
    raw[k] = std::exp(-d * d / (2.0 * kSsimSigma * kSsimSigma));
    total += raw[k];
  }
  SsimWindow<T> window;
  for (int k = 0; k < kSsimTaps; ++k) window.w[k] = T(raw[k] / total);
  return window;
}

// sum_k w[k] v(i + k - 5) over the taps inside [0, n): the window centred on i with zero padding, which is how
// the reference implementation filters (a 'same' convolution whose borders see zeros). load(j) gives v(j).
template <class T, class Load>
TG_HD TG_INLINE T window_sum(const SsimWindow<T>& window, int i, int n, const Load& load) {
  T sum = T(0);
  TG_UNROLL for (int k = 0; k < kSsimTaps; ++k) {
    const int j = i + k - kSsimRadius;
    if (j >= 0 && j < n) sum += window.w[k] * load(j);
  }
  return sum;
}

// Channel c of a premultiplied RGBA8 target pixel composited on `background`: rgb + (1 - alpha) background.
template <class T>
TG_HD TG_INLINE T composite_target(const std::uint8_t* rgba, int c, const T* background) {
  const T scale = T(1) / T(255);
  return T(rgba[c]) * scale + (T(1) - T(rgba[3]) * scale) * background[c];
}

// SSIM of one pixel and channel from the windowed moments mu_x, mu_y, E[x^2], E[y^2], E[xy], and its partial
// derivatives with respect to mu_x, E[x^2] and E[xy] (the moments that depend on x).
template <class T>
struct SsimTerms {
  T value, d_mu_x, d_exx, d_exy;
};

template <class T>
TG_HD TG_INLINE SsimTerms<T> ssim_terms(T mu_x, T mu_y, T exx, T eyy, T exy) {
  const T c1 = T(kSsimC1), c2 = T(kSsimC2);
  const T var_x = exx - mu_x * mu_x, var_y = eyy - mu_y * mu_y, cov = exy - mu_x * mu_y;
  const T a1 = T(2) * mu_x * mu_y + c1, a2 = T(2) * cov + c2;
  const T b1 = mu_x * mu_x + mu_y * mu_y + c1, b2 = var_x + var_y + c2;
  const T inv_b = T(1) / (b1 * b2);
  SsimTerms<T> t;
  t.value = a1 * a2 * inv_b;
  t.d_exy = T(2) * a1 * inv_b;
  t.d_exx = -t.value / b2;
  // mu_x enters a1, b1 directly and a2 (through cov), b2 (through var_x).
  t.d_mu_x = T(2) * mu_y * (a2 - a1) * inv_b + T(2) * mu_x * t.value * (T(1) / b2 - T(1) / b1);
  return t;
}

// d|x - y| / dx with the subgradient 0 at x == y (as autograd's abs).
template <class T>
TG_HD TG_INLINE T abs_derivative(T diff) {
  return diff > T(0) ? T(1) : (diff < T(0) ? T(-1) : T(0));
}

}  // namespace tilegrad::training
