// Per-Gaussian rules of adaptive density control (3DGS): the screen-space statistics gathered each step and
// the clone / split / prune decision, shared by the CPU loops and the CUDA kernels.
#pragma once
#include <cstdint>

#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::training {

// Scale divisor of the two children of a split: 0.8 * 2, the reference implementation's choice.
constexpr float kSplitScaleDivisor = 1.6f;

// The tiles of the view in which the rasterizer renders this Gaussian (an empty rectangle when it renders it
// nowhere: behind the camera, not finite, or fainter than min_alpha everywhere) and, when it is projected, its
// footprint radius in pixels: the same functions and tests as the projection stage. `margin` pixels widen a
// non-empty footprint box on every side (0: exactly the projection's box).
TG_HD TG_INLINE raster::TileRect rendered_tiles(const Vec3<float>& mean, const Vec3<float>& log_scale,
                                                const Vec4<float>& quat, float opacity_logit,
                                                const raster::ProjectionCamera& cam, float blur, bool antialiased,
                                                float extent_sigmas, float min_alpha, float margin, float& radius) {
  const raster::Projected<float> pr =
      raster::project_gaussian(mean, log_scale, quat, opacity_logit, cam, blur, antialiased);
  if (!pr.valid || !is_finite(pr.mean2d[0]) || !is_finite(pr.mean2d[1])) return {0, 0, 0, 0};
  radius = raster::footprint_radius(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], extent_sigmas);
  raster::Extents ext =
      raster::footprint_extents(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], pr.opacity, extent_sigmas, min_alpha);
  if (ext.x > 0.0f && ext.y > 0.0f) ext = {ext.x + margin, ext.y + margin};
  return raster::footprint_tiles(pr.mean2d[0], pr.mean2d[1], ext.x, ext.y,
                                 raster::make_tile_grid(cam.width, cam.height));
}

// Whether the rasterizer renders this Gaussian in the view (in front of the camera, finite footprint touching
// a tile) and, if so, its footprint radius in pixels.
TG_HD TG_INLINE bool rendered_footprint(const Vec3<float>& mean, const Vec3<float>& log_scale, const Vec4<float>& quat,
                                        float opacity_logit, const raster::ProjectionCamera& cam, float blur,
                                        bool antialiased, float extent_sigmas, float min_alpha, float& radius) {
  return rendered_tiles(mean, log_scale, quat, opacity_logit, cam, blur, antialiased, extent_sigmas, min_alpha, 0.0f,
                        radius)
             .area() > 0;
}

// The densification statistic of one view: the norm of the view-space position gradient scaled from pixels to
// normalised device coordinates (x 0.5 width, 0.5 height), the units the 3DGS threshold of 2e-4 is set in.
TG_HD TG_INLINE float ndc_gradient_norm(float grad_u, float grad_v, int width, int height) {
  const float gu = grad_u * 0.5f * static_cast<float>(width), gv = grad_v * 0.5f * static_cast<float>(height);
  return sqrt(gu * gu + gv * gv);
}

struct DensifyRule {
  float grad_threshold;     // on the mean NDC gradient norm over the views that rendered the Gaussian
  float clone_max_scale;    // largest scale (world units) that clones; larger ones split
  float min_opacity;        // prune below
  float max_world_scale;    // prune above (world units); 0: off
  float max_screen_radius;  // prune above (pixels, the largest footprint radius seen); 0: off
};

// A Gaussian's outputs: bit 0 and bit 1 say which of its (up to) two candidate outputs survive pruning; the
// candidates are (itself, its clone) or, with kPlanSplit, its two children (the original is removed).
enum : std::uint8_t { kPlanFirst = 1, kPlanSecond = 2, kPlanSplit = 4 };

TG_HD TG_INLINE int plan_outputs(std::uint8_t plan) {
  return (plan & kPlanFirst ? 1 : 0) + (plan & kPlanSecond ? 1 : 0);
}

TG_HD TG_INLINE float max_scale(const Vec3<float>& log_scale) {
  return exp(max(log_scale[0], max(log_scale[1], log_scale[2])));
}

// Clones and children keep the opacity and start with no screen-size history (as in the reference, whose
// statistics restart at zero after densification); children are smaller by kSplitScaleDivisor.
TG_HD TG_INLINE std::uint8_t densify_plan(float grad_accum, float views, float max_radius, const Vec3<float>& log_scale,
                                          float opacity_logit, const DensifyRule& r) {
  const float grad = views > 0.0f ? grad_accum / views : 0.0f;
  const float scale = max_scale(log_scale);
  const bool low_opacity = sigmoid(opacity_logit) < r.min_opacity;
  auto too_big = [&](float s) { return r.max_world_scale > 0.0f && s > r.max_world_scale; };
  const bool huge_on_screen = r.max_screen_radius > 0.0f && max_radius > r.max_screen_radius;
  if (grad >= r.grad_threshold && scale > r.clone_max_scale) {
    const bool keep = !low_opacity && !too_big(scale / kSplitScaleDivisor);
    return std::uint8_t(kPlanSplit | (keep ? kPlanFirst | kPlanSecond : 0));
  }
  std::uint8_t plan = (low_opacity || too_big(scale) || huge_on_screen) ? 0 : kPlanFirst;
  if (grad >= r.grad_threshold && !low_opacity && !too_big(scale)) plan |= kPlanSecond;
  return plan;
}

// Position of split child `child` (0 or 1) of Gaussian `index`: the mean plus a sample of the Gaussian itself,
// R diag(scale) n with n standard normal, addressed by (seed, iteration, index, child).
TG_HD TG_INLINE Vec3<float> split_child_mean(const Vec3<float>& mean, const Vec3<float>& log_scale,
                                             const Vec4<float>& quat, std::uint64_t seed, std::uint64_t iteration,
                                             std::uint64_t index, int child) {
  const Mat3<float> r = raster::rotation_from_quaternion(quat);
  const std::uint64_t base = ((iteration << 36) ^ (index << 2) ^ std::uint64_t(child)) * 3;
  Vec3<float> local;
  TG_UNROLL for (int a = 0; a < 3; ++a) local[a] =
      exp(log_scale[a]) * random_normal(seed, RandomStream::SplitOffsets, base + a);
  Vec3<float> out = mean;
  TG_UNROLL for (int a = 0; a < 3; ++a) out[a] += r(a, 0) * local[0] + r(a, 1) * local[1] + r(a, 2) * local[2];
  return out;
}

}  // namespace tilegrad::training
