// CUDA backward driver: blend backward -> per-Gaussian reduction -> projection backward (one thread per
// Gaussian, local Jacobians from dual numbers through the forward's own projection and colour code).
#include "cuda/backend.h"
#include "cuda/blend_backward.h"
#include "cuda/common.cuh"
#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/rasterizer/element/projection_backward.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
enum WorkspaceSlot : std::size_t { kGrad2d = 16, kPartial, kNonfiniteFlag };
// Owned: Gaussians with fewer instances than this sum their instance records inline (exact::sum); longer ones
// are reduced in place first by the AD layer. Both are the same exact sum, so the bits do not depend on it.
constexpr std::uint32_t kInlineInstances = 32;

struct ProjectBackwardArgs {
  std::size_t n;
  int stored_k, active_degree;
  const float *means, *log_scales, *quats, *logits, *sh, *colors;
  ProjectionCamera cam;
  float blur;
  bool antialiased;
  const std::uint8_t* clamped;
  const std::uint32_t* offsets;
  const float* grad2d;   // per-Gaussian records (Atomic, WarpAggregated, SortReduce), or null:
  const float* partial;  // Owned: per-instance records, long segments already reduced into their first row
  float *g_means, *g_log_scales, *g_quats, *g_logits, *g_sh, *g_colors, *g_mean2d, *g_mean2d_abs;
};

// Capped at 128 registers (2 blocks per SM): a little L1-resident spilling buys twice the warps to hide
// the parameter loads and gradient stores.
__global__ void __launch_bounds__(kBlock, 2) project_backward_kernel(ProjectBackwardArgs a) {
  const std::size_t g = global_thread();
  if (g >= a.n) return;
  const std::uint32_t begin = a.offsets[g], instances = a.offsets[g + 1] - begin;
  const bool rendered = instances != 0;
  float rec[kGrad2dWidth];
#pragma unroll
  for (int c = 0; c < kGrad2dWidth; ++c) {
    if (!rendered) {
      rec[c] = 0.0f;
    } else if (a.grad2d) {
      rec[c] = a.grad2d[g * kGrad2dWidth + c];
    } else if (instances >= kInlineInstances) {
      rec[c] = a.partial[std::size_t(begin) * kGrad2dWidth + c];
    } else {
      const float* rows = a.partial + std::size_t(begin) * kGrad2dWidth + c;
      rec[c] = exact::sum([&](std::uint32_t i) { return rows[std::size_t(i) * kGrad2dWidth]; }, instances);
    }
  }
  const Vec3<float> mean{{a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]}};
  ParamGrad<float> pg{};
  const int k_total = a.stored_k * 3;
  if (rendered) {
    const Vec3<float> log_scale{{a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]}};
    const Vec4<float> quat{{a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]}};
    pg = project_gaussian_vjp(mean, log_scale, quat, a.logits[g], a.cam, a.blur, a.antialiased, rec);
  }
  if (a.colors) {
    for (int c = 0; c < 3; ++c) a.g_colors[3 * g + c] = rec[kGradColor + c];
  } else {
    float* out = a.g_sh + g * k_total;
    const int active = (a.active_degree + 1) * (a.active_degree + 1) * 3;
    for (int c = active; c < k_total; ++c) out[c] = 0.0f;  // bands above the active degree
    if (rendered) {
      sh_color_vjp(a.active_degree, a.sh + g * k_total, mean, a.cam.position, a.clamped[g], rec + kGradColor, pg.mean,
                   out);
    } else {
      for (int c = 0; c < active; ++c) out[c] = 0.0f;
    }
  }
  for (int c = 0; c < 3; ++c) {
    a.g_means[3 * g + c] = pg.mean[c];
    a.g_log_scales[3 * g + c] = pg.log_scale[c];
  }
  for (int c = 0; c < 4; ++c) a.g_quats[4 * g + c] = pg.quat[c];
  a.g_logits[g] = pg.opacity_logit;
  a.g_mean2d[2 * g] = rec[kGradU];
  a.g_mean2d[2 * g + 1] = rec[kGradV];
  a.g_mean2d_abs[2 * g] = rec[kGradAbsU];
  a.g_mean2d_abs[2 * g + 1] = rec[kGradAbsV];
}

__global__ void nonfinite_kernel(const float* v, std::size_t n, unsigned* flag) {
  const std::size_t i = global_thread();
  const bool bad = i < n && !isfinite(v[i]);
  if (__any_sync(0xFFFFFFFFu, bad) && cuda::lane_id() == 0) *flag = 1u;  // any writer: same value
}

}  // namespace

bool any_nonfinite(const float* values, std::size_t n, Workspace& ws) {
  auto* flag = ws.slot<unsigned>(kNonfiniteFlag, 1);
  TG_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(unsigned)));
  cuda::launch(nonfinite_kernel, n, kBlock, 0, values, n, flag);
  unsigned host = 0;
  TG_CUDA_CHECK(cudaMemcpy(&host, flag, sizeof(host), cudaMemcpyDeviceToHost));
  return host != 0;
}

void backward(const GaussiansView& g, const DeviceState& s, const float* dl_dimage, const float* dl_dalpha,
              const float* dl_ddepth, Accumulation accumulation, Gradients& grads, Accumulator& acc, Workspace& ws,
              StageTimes* times) {
  const std::size_t n = g.count;
  const int stored_k = sh_coefficients(g.sh_degree);
  const bool colors = !g.colors.empty();
  grads.means = Buffer<float>(n * 3, Device::Cuda);
  grads.log_scales = Buffer<float>(n * 3, Device::Cuda);
  grads.quats = Buffer<float>(n * 4, Device::Cuda);
  grads.opacity_logits = Buffer<float>(n, Device::Cuda);
  grads.sh = Buffer<float>(colors ? 0 : n * stored_k * 3, Device::Cuda);
  grads.colors = Buffer<float>(colors ? n * 3 : 0, Device::Cuda);
  grads.mean2d = Buffer<float>(n * 2, Device::Cuda);
  grads.mean2d_abs = Buffer<float>(n * 2, Device::Cuda);
  StageClock clock(times != nullptr);

  const bool records = accumulation == Accumulation::Owned || accumulation == Accumulation::SortReduce;
  // Per-Gaussian records: the atomic targets, or SortReduce's output; Owned needs none.
  float* grad2d = nullptr;
  if (accumulation != Accumulation::Owned) {
    grad2d = ws.slot<float>(kGrad2d, n * kGrad2dWidth);
    TG_CUDA_CHECK(cudaMemsetAsync(grad2d, 0, n * kGrad2dWidth * sizeof(float)));
  }
  Buffer<float> partial_buffer(records ? s.instances * kGrad2dWidth : 0, Device::Cuda);  // freed after the call
  float* partial = partial_buffer.data();
  BlendBackwardArgs ba{s.grid,
                       s.settings.thresholds,
                       {s.settings.background[0], s.settings.background[1], s.settings.background[2]},
                       s.projected.data(),
                       s.tile_start.data(),
                       s.sorted_gaussians.data(),
                       s.offsets.data(),
                       s.contributors.data(),
                       s.final_transmittance.data(),
                       dl_dimage,
                       dl_dalpha,
                       dl_ddepth,
                       grad2d,
                       partial};
  const std::size_t pixels = std::size_t(s.grid.width) * s.grid.height;
  if (pixels > 0) launch_blend_backward(accumulation, ba, s.grid.count());
  clock.mark();

  if (records && s.instances > 0) {
    const View<float> values(partial, s.instances * kGrad2dWidth, Device::Cuda);
    if (accumulation == Accumulation::Owned) {
      // The forward's binning laid out each Gaussian's instances contiguously: its offsets are the segments.
      acc.reduce_segments_in_place(values, kGrad2dWidth,
                                   View<const std::uint32_t>(s.offsets.data(), n + 1, Device::Cuda), kInlineInstances);
    } else {
      Contributions in;
      in.values = values;
      in.width = kGrad2dWidth;
      in.ids = View<const std::uint32_t>(s.sorted_gaussians.data(), s.instances, Device::Cuda);
      acc.accumulate(Accumulation::SortReduce, in, View<float>(grad2d, n * kGrad2dWidth, Device::Cuda), {false});
    }
  }
  clock.mark();

  ProjectBackwardArgs pa{n,
                         stored_k,
                         s.active_degree,
                         g.means.data(),
                         g.log_scales.data(),
                         g.quats.data(),
                         g.opacity_logits.data(),
                         colors ? nullptr : g.sh.data(),
                         colors ? g.colors.data() : nullptr,
                         s.camera,
                         s.settings.blur,
                         s.settings.antialiased,
                         s.clamped.data(),
                         s.offsets.data(),
                         grad2d,
                         partial,
                         grads.means.data(),
                         grads.log_scales.data(),
                         grads.quats.data(),
                         grads.opacity_logits.data(),
                         grads.sh.data(),
                         grads.colors.data(),
                         grads.mean2d.data(),
                         grads.mean2d_abs.data()};
  cuda::launch(project_backward_kernel, n, kBlock, 0, pa);
  clock.mark();
  if (times) {
    times->blend_backward = clock.elapsed(0);
    times->reduce = clock.elapsed(1);
    times->project_backward = clock.elapsed(2);
  }
}

}  // namespace tilegrad::raster::cuda_backend
