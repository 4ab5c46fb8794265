// Lenses of every COLMAP model with distortion, with coefficients of the size real calibrations have.
#pragma once
#include <string>
#include <vector>

#include "tilegrad/rasterizer/lens.h"

namespace tilegrad::test {

inline raster::Lens make_lens(raster::LensModel model, std::vector<double> params) {
  raster::Lens lens;
  lens.model = model;
  for (std::size_t i = 0; i < params.size(); ++i) lens.params[i] = params[i];
  return lens;
}

inline std::vector<raster::Lens> every_distorted_lens() {
  using M = raster::LensModel;
  return {
      make_lens(M::SimpleRadial, {-0.12}),
      make_lens(M::Radial, {-0.25, 0.08}),
      make_lens(M::OpenCV, {-0.28, 0.09, 0.0012, -0.0008}),
      make_lens(M::FullOpenCV, {-0.3, 0.1, 0.001, -0.0015, -0.02, 0.05, 0.01, 0.002}),
      make_lens(M::OpenCVFisheye, {0.05, -0.01, 0.003, -0.0005}),
      make_lens(M::SimpleRadialFisheye, {0.04}),
      make_lens(M::RadialFisheye, {0.03, -0.005}),
      make_lens(M::Fov, {0.9}),
  };
}

}  // namespace tilegrad::test
