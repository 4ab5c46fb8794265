// The scene being trained: Gaussian parameters, their Adam moments (same shapes) and the per-Gaussian
// densification statistics, all on one device. Densification moves every part of it together.
#pragma once
#include <array>
#include <cstdint>

#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::training {

struct GaussianModel {
  raster::Gaussians params;
  raster::Gaussians adam_m, adam_v;  // first and second moments, laid out like params
  std::int64_t adam_step = 0;        // steps taken (bias corrections)
  // Densification statistics since the last densification: sum over views of the NDC gradient norm, number of
  // views that rendered the Gaussian, largest footprint radius (pixels).
  Buffer<float> grad_accum, view_count, max_radius;  // [N]

  // Takes the parameters (SH stored for any degree, no precomputed colours), with zero moments and statistics.
  static GaussianModel from_parameters(raster::Gaussians params);
  // Every array, in one fixed order: params, adam_m, adam_v (each: means, log_scales, quats, opacity_logits, sh),
  // then grad_accum, view_count, max_radius.
  static constexpr std::size_t kArrays = 18;
  std::array<const Buffer<float>*, kArrays> arrays() const;
  std::array<Buffer<float>*, kArrays> arrays();

  std::size_t count() const { return params.count(); }
  Device device() const { return params.device(); }
  GaussianModel to(Device device) const;
  // Copies into `dst` on `device`, reusing dst's buffers whose size is unchanged (no allocation).
  void copy_into(GaussianModel& dst, Device device) const;
  void zero_statistics();
};

}  // namespace tilegrad::training
