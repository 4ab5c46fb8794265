// Inputs and error scales shared by the blend-step tests (host and device).
#pragma once
#include <cmath>
#include <random>

#include "tilegrad/rasterizer/element/blend.h"

namespace tilegrad::test {

// Splats around pixel (x, y) = (5, 7): some far (unused), some nearly opaque at the centre (clamped), and
// conics from round to elongated.
template <class T>
raster::Splat<T> random_splat(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), unit(0.0, 1.0);
  const double sx = 1.0 + 6.0 * unit(rng), sy = 1.0 + 6.0 * unit(rng), rho = 0.9 * u(rng);
  const double det = sx * sx * sy * sy * (1 - rho * rho);
  const bool solid = unit(rng) < 0.2;
  return {T(5.5 + (solid ? 0.2 : 6.0) * u(rng)), T(7.5 + (solid ? 0.2 : 6.0) * u(rng)), T(sy * sy / det),
          T(-rho * sx * sy / det), T(sx * sx / det), T(solid ? 0.995 + 0.004 * unit(rng) : 0.05 + 0.9 * unit(rng))};
}

// A fragment's colour (each channel in [0, 1]) and depth (in [2, 5]).
template <class T>
Vec4<T> random_colour_depth(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double r = unit(rng), g = unit(rng), b = unit(rng);
  return {{T(r), T(g), T(b), T(2.0 + 3.0 * unit(rng))}};
}

// The scale of the terms of each record entry: rounding errors are relative to it, not to the (possibly
// cancelling) result.
template <class T>
double term_scale(const raster::Fragment<T>& f, const raster::Splat<T>& s, T d_alpha, int entry) {
  const double ga = std::fabs(double(d_alpha)), alpha = double(f.alpha), dx = double(f.dx), dy = double(f.dy);
  switch (entry) {
    case raster::kGradU: return ga * alpha * (std::fabs(double(s.a) * dx) + std::fabs(double(s.b) * dy));
    case raster::kGradV: return ga * alpha * (std::fabs(double(s.c) * dy) + std::fabs(double(s.b) * dx));
    case raster::kGradConicA: return ga * alpha * dx * dx;
    case raster::kGradConicB: return ga * alpha * std::fabs(dx * dy);
    case raster::kGradConicC: return ga * alpha * dy * dy;
    default: return ga * double(f.weight);
  }
}

}  // namespace tilegrad::test
