// View-dependent colour of a Gaussian from its SH coefficients: direction from the camera centre to the mean,
// SH evaluation, clamping at 0 (with the mask the backward needs).
#pragma once
#include <cstdint>

#include "tilegrad/rasterizer/element/sh.h"

namespace tilegrad::raster {

template <class S>
TG_HD Vec3<S> view_direction(const Vec3<S>& mean, const Vec3<float>& camera_position) {
  using T = scalar_of_t<S>;
  Vec3<S> d;
  TG_UNROLL for (int i = 0; i < 3; ++i) d[i] = mean[i] - T(camera_position[i]);
  return d * rsqrt(dot(d, d));
}

// coeffs: this Gaussian's [K_stored, 3] coefficients; only the first (active_degree + 1)^2 are used.
// clamped_mask bit c is set when channel c was negative and clamped to 0.
template <class S, class C>
TG_HD Vec3<S> sh_color(int active_degree, const C* coeffs, const Vec3<S>& mean, const Vec3<float>& camera_position,
                       std::uint8_t& clamped_mask) {
  Vec3<S> rgb = sh_color_unclamped(active_degree, coeffs, view_direction(mean, camera_position));
  clamped_mask = 0;
  TG_UNROLL for (int c = 0; c < 3; ++c) {
    if (rgb[c] < scalar_of_t<S>(0)) {
      rgb[c] = S(scalar_of_t<S>(0));
      clamped_mask |= std::uint8_t(1u << c);
    }
  }
  return rgb;
}

}  // namespace tilegrad::raster
