// Internal: flat arguments of the densification passes (passed by value to CUDA kernels) and their
// per-Gaussian bodies, shared by the CPU loops and the kernels.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/training/element/densify.h"

namespace tilegrad::training::detail {

TG_HD TG_INLINE Vec3<float> load_vec3(const float* p, std::size_t i) {
  return {{p[3 * i], p[3 * i + 1], p[3 * i + 2]}};
}
TG_HD TG_INLINE Vec4<float> load_vec4(const float* p, std::size_t i) {
  return {{p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]}};
}

struct StatsArgs {
  std::size_t n;
  const float *means, *log_scales, *quats, *logits;
  const float* mean2d_grad;  // [N, 2] pixels
  raster::ProjectionCamera cam;
  float blur, extent_sigmas, min_alpha;
  bool antialiased;
  float *grad_accum, *view_count, *max_radius;
};

TG_HD TG_INLINE void stats_element(const StatsArgs& a, std::size_t i) {
  float radius = 0.0f;
  if (!rendered_footprint(load_vec3(a.means, i), load_vec3(a.log_scales, i), load_vec4(a.quats, i), a.logits[i], a.cam,
                          a.blur, a.antialiased, a.extent_sigmas, a.min_alpha, radius))
    return;
  a.grad_accum[i] += ndc_gradient_norm(a.mean2d_grad[2 * i], a.mean2d_grad[2 * i + 1], a.cam.width, a.cam.height);
  a.view_count[i] += 1.0f;
  a.max_radius[i] = max(a.max_radius[i], radius);
}

struct PlanArgs {
  std::size_t n;
  const float *log_scales, *logits, *grad_accum, *view_count, *max_radius;
  DensifyRule rule;
  std::uint8_t* plan;  // [N]
};

TG_HD TG_INLINE void plan_element(const PlanArgs& a, std::size_t i) {
  a.plan[i] =
      densify_plan(a.grad_accum[i], a.view_count[i], a.max_radius[i], load_vec3(a.log_scales, i), a.logits[i], a.rule);
}

// The per-Gaussian arrays that move together: parameters, first and second moments of each.
constexpr int kFieldCount = 5;  // means, log_scales, quats, opacity_logits, sh
enum Field : int { kMeans = 0, kLogScales, kQuats, kLogits, kSh };

struct FieldPointers {
  const float* src[kFieldCount];
  float* dst[kFieldCount];
};

struct ScatterArgs {
  std::size_t n;
  int width[kFieldCount];
  FieldPointers params, m, v;
  const std::uint8_t* plan;
  const std::uint32_t* offsets;  // [N + 1] first output of each source
  std::uint64_t seed, iteration;
  std::uint64_t first_index;  // global index of source 0 (split offsets are drawn per global index)
};

// Writes the outputs of source i: itself (with its moments) and its clone (fresh moments), or its two split
// children (fresh moments, smaller, displaced), whichever of them the plan keeps.
TG_HD TG_INLINE void scatter_element(const ScatterArgs& a, std::size_t i) {
  const std::uint8_t plan = a.plan[i];
  std::size_t out = a.offsets[i];
  const bool split = plan & kPlanSplit;
  for (int candidate = 0; candidate < 2; ++candidate) {
    if (!(plan & (candidate == 0 ? kPlanFirst : kPlanSecond))) continue;
    const bool fresh = split || candidate == 1;
    for (int f = 0; f < kFieldCount; ++f) {
      const int w = a.width[f];
      const float* src = a.params.src[f] + i * w;
      float* dst = a.params.dst[f] + out * w;
      for (int k = 0; k < w; ++k) {
        dst[k] = src[k];
        a.m.dst[f][out * w + k] = fresh ? 0.0f : a.m.src[f][i * w + k];
        a.v.dst[f][out * w + k] = fresh ? 0.0f : a.v.src[f][i * w + k];
      }
    }
    if (split) {
      const Vec3<float> log_scale = load_vec3(a.params.src[kLogScales], i);
      const Vec3<float> mean = split_child_mean(load_vec3(a.params.src[kMeans], i), log_scale,
                                                load_vec4(a.params.src[kQuats], i), a.seed, a.iteration,
                                                a.first_index + i, candidate);
      for (int k = 0; k < 3; ++k) {
        a.params.dst[kMeans][out * 3 + k] = mean[k];
        a.params.dst[kLogScales][out * 3 + k] = log_scale[k] - log(kSplitScaleDivisor);
      }
    }
    ++out;
  }
}

// Opacity reset: opacities above `max_logit` (as logits) come down to it; the moments of every opacity restart.
TG_HD TG_INLINE void reset_opacity_element(float* logits, float* m, float* v, float max_logit, std::size_t i) {
  logits[i] = min(logits[i], max_logit);
  m[i] = 0.0f;
  v[i] = 0.0f;
}

}  // namespace tilegrad::training::detail
