// CUDA projection backward: one thread per Gaussian, local Jacobians from dual numbers through the forward's own
// projection and colour code (element/projection_backward.h). The forward state is packed by visible index v
// (device_state.h): the per-Gaussian gradient records are indexed by v, the parameters and their gradients by the
// Gaussian index g.
#include "cuda/common.cuh"
#include "cuda/project_backward.h"
#include "tilegrad/rasterizer/element/projection_backward.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;

struct ProjectBackwardArgs {
  ParamArrays<float> params;
  ProjectionSettings ps;
  const std::uint32_t *visible_mask, *visible_before;  // v of each Gaussian (visible_index)
  const std::uint8_t* clamped;                         // [V]
  const float* grad2d;  // [V, width] per-Gaussian records
  int width;           // floats per record: 9, or 12 with depth and |dL/dmean2d|
  float *d_means, *d_log_scales, *d_quats, *d_logits, *d_sh, *d_colors, *d_mean2d, *d_mean2d_abs;
};

constexpr unsigned kProjectBlock = 128;
constexpr int kStageStride = 3 * kShMaxCoefficients + 1;  // odd: lanes' rows fall in different banks

// Writes one value row per lane (per_item floats, item = lane) for the warp's 32 consecutive items as one
// contiguous block: every store instruction then covers consecutive addresses. `rows` is this warp's staging
// area (32 rows of kStageStride floats) already filled; items at or beyond n are not written.
__device__ void warp_store(float* dst, std::size_t first_item, std::size_t n, int per_item, const float* rows) {
  __syncwarp();
  const std::size_t items = n > first_item ? min(std::size_t(32), n - first_item) : 0;
  const int total = int(items) * per_item;
  for (int idx = int(cuda::lane_id()); idx < total; idx += 32)
    dst[first_item * per_item + idx] = rows[(idx / per_item) * kStageStride + idx % per_item];
  __syncwarp();
}

// One thread per Gaussian g, not per visible one: every gradient row, zeros included, is written once by the
// warp's coalesced stores. Zero-filling the gradients first and scattering the visible rows from one thread per
// visible Gaussian would write those rows twice (all of them when everything is visible, as in training on an
// object) and scatter them. The visible lanes find their records through v (visible_index: two broadcast loads
// per warp).
// Capped at 128 registers (4 blocks of 128 threads per SM): a little L1-resident spilling buys more warps to
// hide the parameter loads and gradient stores.
__global__ void __launch_bounds__(kProjectBlock, 4) project_backward_kernel(ProjectBackwardArgs a) {
  __shared__ float s_stage[kProjectBlock / 32][32 * kStageStride];
  const std::size_t g = global_thread();
  const std::size_t first = g - cuda::lane_id();
  float* row = s_stage[threadIdx.x / 32] + cuda::lane_id() * kStageStride;
  const float* rows = s_stage[threadIdx.x / 32];
  const std::size_t n = a.params.count;
  const bool valid = g < n;
  const VisibleIndex vi = valid ? visible_index(a.visible_mask, a.visible_before, g) : VisibleIndex{false, 0};
  const bool rendered = vi.visible;  // a visible Gaussian has at least one instance
  const std::uint32_t v = vi.v;
  const int width = a.width;
  float rec[kGrad2dWidth];
#pragma unroll
  for (int c = 0; c < kGrad2dWidth; ++c) rec[c] = 0.0f;
  if (rendered) {
    const float* src = a.grad2d + std::size_t(v) * width;
#pragma unroll
    for (int c = 0; c < kGrad2dWidth; ++c)
      if (c < width) rec[c] = src[c];
  }
  const ParamArrays<float>& p = a.params;
  const Vec3<float> mean = valid ? p.mean(g) : Vec3<float>::zero();
  ParamGrad<float> pg{};
  if (rendered)
    pg = project_gaussian_vjp(mean, p.log_scale(g), p.quat(g), p.opacity_logits[g], a.ps.camera, a.ps.blur,
                              a.ps.antialiased, rec);
  // Colour: precomputed colours or SH coefficients (the direction term adds to the mean gradient).
  if (p.colors) {
    for (int c = 0; c < 3; ++c) row[c] = rec[kGradColor + c];
    warp_store(a.d_colors, first, n, 3, rows);
  } else {
    const int k_total = p.sh_values();
    for (int c = 0; c < k_total; ++c) row[c] = 0.0f;  // inactive bands and Gaussians not rendered
    if (rendered)
      sh_color_vjp(a.ps.active_degree, p.sh + g * k_total, mean, a.ps.camera.position, a.clamped[v], rec + kGradColor,
                   pg.mean, row);
    warp_store(a.d_sh, first, n, k_total, rows);
  }
  for (int c = 0; c < 3; ++c) row[c] = pg.mean[c];
  warp_store(a.d_means, first, n, 3, rows);
  for (int c = 0; c < 3; ++c) row[c] = pg.log_scale[c];
  warp_store(a.d_log_scales, first, n, 3, rows);
  for (int c = 0; c < 4; ++c) row[c] = pg.quat[c];
  warp_store(a.d_quats, first, n, 4, rows);
  row[0] = pg.opacity_logit;
  warp_store(a.d_logits, first, n, 1, rows);
  row[0] = rec[kGradU];
  row[1] = rec[kGradV];
  warp_store(a.d_mean2d, first, n, 2, rows);
  if (a.d_mean2d_abs) {
    row[0] = rec[kGradAbsU];
    row[1] = rec[kGradAbsV];
    warp_store(a.d_mean2d_abs, first, n, 2, rows);
  }
}

}  // namespace

void project_backward(const GaussiansView& g, const DeviceState& s, const float* grad2d, int width, Gradients& grads) {
  const std::size_t n = g.count;
  const ProjectBackwardArgs pa{param_arrays(g),
                               s.projection,
                               s.visible_mask.data(),
                               s.visible_before.data(),
                               s.clamped.data(),
                               grad2d,
                               width,
                               grads.means.data(),
                               grads.log_scales.data(),
                               grads.quats.data(),
                               grads.opacity_logits.data(),
                               grads.sh.data(),
                               grads.colors.data(),
                               grads.mean2d.data(),
                               grads.mean2d_abs.data()};
  cuda::launch(project_backward_kernel, n, kProjectBlock, 0, pa);
}

}  // namespace tilegrad::raster::cuda_backend
