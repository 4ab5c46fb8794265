// Per-element operations of the Python binding, between gsplat's conventions and the library's: activated scales
// and opacities to log-scales and logits (and their gradients back), the output pixels of the render modes (and
// their gradients), sums over cameras, and the per-camera projection summary of `meta`. Each is a functor over one
// index, written once (TG_HD) for the CPU loop and the CUDA kernel of for_each.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/core/common.h"
#include "tilegrad/core/device.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"

namespace tilegrad::python {

// Activated values are clamped into the range the library's parameters can represent: scales to at least
// kMinScale (log-scales are finite), opacities to [kOpacityEps, 1 - kOpacityEps] (logits are finite). NaN passes
// through (the rasterizer culls Gaussians with non-finite parameters).
constexpr float kMinScale = 1e-30f;
constexpr float kOpacityEps = 5.9604645e-8f;  // 2^-24: 1 - eps is the largest float below 1
// gsplat's expected depth divides by max(alpha, kMinAlpha).
constexpr float kMinAlpha = 1e-10f;

TG_HD inline float clamp_scale(float s) { return s < kMinScale ? kMinScale : s; }
TG_HD inline float clamp_opacity(float o) {
  return o < kOpacityEps ? kOpacityEps : (o > 1.0f - kOpacityEps ? 1.0f - kOpacityEps : o);
}

// scales [N, 3], opacities [N] -> log_scales [N, 3], logits [N]; index: Gaussian.
struct ToParameters {
  const float* scales;
  const float* opacities;
  float* log_scales;
  float* logits;
  TG_HD void operator()(std::size_t i) const {
    for (int k = 0; k < 3; ++k) log_scales[3 * i + k] = ::logf(clamp_scale(scales[3 * i + k]));
    const float o = clamp_opacity(opacities[i]);
    logits[i] = ::logf(o) - ::log1pf(-o);
  }
};

// Chain rule through ToParameters, in place: dL/dlog_scale -> dL/dscale = dL/dlog_scale / scale and
// dL/dlogit -> dL/dopacity = dL/dlogit / (o (1 - o)); zero where the clamp was active (its derivative).
struct ToActivationGradients {
  const float* scales;
  const float* opacities;
  float* scale_grads;    // in: dL/dlog_scale, out: dL/dscale
  float* opacity_grads;  // in: dL/dlogit, out: dL/dopacity
  TG_HD void operator()(std::size_t i) const {
    for (int k = 0; k < 3; ++k) {
      const float s = scales[3 * i + k];
      scale_grads[3 * i + k] = s < kMinScale ? 0.0f : scale_grads[3 * i + k] / s;
    }
    const float o = opacities[i];
    const bool clamped = o < kOpacityEps || o > 1.0f - kOpacityEps;
    opacity_grads[i] = clamped ? 0.0f : opacity_grads[i] / (o * (1.0f - o));
  }
};

// What a render mode writes per pixel: the colour (3 channels) and/or one depth channel after it.
enum class DepthOutput : int { None = 0, Accumulated = 1, Expected = 2 };
struct PixelLayout {
  bool rgb = true;
  DepthOutput depth = DepthOutput::None;
  TG_HD int channels() const { return (rgb ? 3 : 0) + (depth != DepthOutput::None ? 1 : 0); }
};

// One camera's forward output -> its slice of colors [H, W, X] and alphas [H, W]; index: pixel.
struct ComposePixels {
  PixelLayout layout;
  const float* image;  // [P, 3]
  const float* alpha;  // [P]
  const float* depth;  // [P] (sum of w z); null when layout.depth is None
  float* colors;       // [P, X]
  float* alphas;       // [P]
  TG_HD void operator()(std::size_t p) const {
    const int x = layout.channels();
    float* out = colors + p * x;
    if (layout.rgb)
      for (int c = 0; c < 3; ++c) out[c] = image[3 * p + c];
    const float a = alpha[p];
    if (layout.depth == DepthOutput::Accumulated) out[x - 1] = depth[p];
    if (layout.depth == DepthOutput::Expected) out[x - 1] = depth[p] / (a > kMinAlpha ? a : kMinAlpha);
    alphas[p] = a;
  }
};

// The gradients of one camera's colors [H, W, X] (and alphas [H, W]) -> the rasterizer's dL/dimage [P, 3],
// dL/ddepth [P] and dL/dalpha [P]; index: pixel. The expected depth D / max(alpha, kMinAlpha) adds
// -g D / alpha^2 to dL/dalpha where alpha > kMinAlpha.
struct SplitPixelGradients {
  PixelLayout layout;
  const float* v_colors;  // [P, X]
  const float* v_alphas;  // [P] or null
  const float* alpha;     // [P] forward alpha
  const float* depth;     // [P] forward accumulated depth, or null
  float* d_image;         // [P, 3]
  float* d_depth;         // [P] or null (layout.depth None)
  float* d_alpha;         // [P] or null (no v_alphas and no expected depth)
  TG_HD void operator()(std::size_t p) const {
    const int x = layout.channels();
    const float* g = v_colors + p * x;
    for (int c = 0; c < 3; ++c) d_image[3 * p + c] = layout.rgb ? g[c] : 0.0f;
    float d_alpha_p = v_alphas ? v_alphas[p] : 0.0f;
    if (layout.depth == DepthOutput::Accumulated) d_depth[p] = g[x - 1];
    if (layout.depth == DepthOutput::Expected) {
      const float a = alpha[p];
      const bool floor = !(a > kMinAlpha);
      const float ac = floor ? kMinAlpha : a;
      d_depth[p] = g[x - 1] / ac;
      if (!floor) d_alpha_p -= g[x - 1] * depth[p] / (ac * ac);
    }
    if (d_alpha) d_alpha[p] = d_alpha_p;
  }
};

// dst[i] += src[i] (sums over cameras, in camera order).
struct AddInto {
  const float* src;
  float* dst;
  TG_HD void operator()(std::size_t i) const { dst[i] += src[i]; }
};

// The projection summary gsplat returns in `meta` for one camera; index: Gaussian. The same element functions
// as the rasterizer's projection, so a Gaussian has radii > 0 exactly when its footprint reaches a tile.
struct ProjectMeta {
  raster::ProjectionCamera camera;
  raster::TileGrid grid;
  float blur;
  bool antialiased;
  float min_alpha, extent_sigmas;
  const float* means;           // [N, 3]
  const float* log_scales;      // [N, 3]
  const float* quats;           // [N, 4]
  const float* logits;          // [N]
  float* means2d;               // [N, 2]
  float* depths;                // [N]
  float* conics;                // [N, 3]
  float* opacities;             // [N] (with the antialiasing compensation)
  std::int32_t* radii;          // [N, 2] half-widths in pixels of the footprint box; 0 when not rendered
  TG_HD void operator()(std::size_t i) const {
    const Vec3<float> mean{{means[3 * i], means[3 * i + 1], means[3 * i + 2]}};
    const Vec3<float> log_scale{{log_scales[3 * i], log_scales[3 * i + 1], log_scales[3 * i + 2]}};
    const Vec4<float> quat{{quats[4 * i], quats[4 * i + 1], quats[4 * i + 2], quats[4 * i + 3]}};
    const raster::Projected<float> pr =
        raster::project_gaussian(mean, log_scale, quat, logits[i], camera, blur, antialiased);
    means2d[2 * i] = pr.valid ? pr.mean2d[0] : 0.0f;
    means2d[2 * i + 1] = pr.valid ? pr.mean2d[1] : 0.0f;
    depths[i] = pr.depth;
    for (int k = 0; k < 3; ++k) conics[3 * i + k] = pr.valid ? pr.conic[k] : 0.0f;
    opacities[i] = pr.valid ? pr.opacity : 0.0f;
    radii[2 * i] = 0;
    radii[2 * i + 1] = 0;
    if (!pr.valid || !is_finite(pr.mean2d[0]) || !is_finite(pr.mean2d[1])) return;
    const raster::Extents e =
        raster::footprint_extents(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], pr.opacity, extent_sigmas, min_alpha);
    if (raster::footprint_tiles(pr.mean2d[0], pr.mean2d[1], e.x, e.y, grid).area() == 0) return;
    radii[2 * i] = static_cast<std::int32_t>(::ceilf(e.x));
    radii[2 * i + 1] = static_cast<std::int32_t>(::ceilf(e.y));
  }
};

// Runs op(i) for i in [0, n): a loop on the CPU, one kernel on the default CUDA stream (asynchronous).
#define TG_PYTHON_OPS(X) X(ToParameters) X(ToActivationGradients) X(ComposePixels) X(SplitPixelGradients) \
  X(AddInto) X(ProjectMeta)
#define TG_PYTHON_DECLARE_FOR_EACH(Op) void for_each(Device device, std::size_t n, const Op& op);
TG_PYTHON_OPS(TG_PYTHON_DECLARE_FOR_EACH)
#undef TG_PYTHON_DECLARE_FOR_EACH

namespace cuda {
#define TG_PYTHON_DECLARE_CUDA(Op) void for_each(std::size_t n, const Op& op);
TG_PYTHON_OPS(TG_PYTHON_DECLARE_CUDA)
#undef TG_PYTHON_DECLARE_CUDA
// The CUDA device the runtime renders on (cudaGetDevice).
int current_device();
}  // namespace cuda

}  // namespace tilegrad::python
