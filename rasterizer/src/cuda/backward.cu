// CUDA backward driver: blend backward -> per-Gaussian reduction -> projection backward (one thread per
// Gaussian, local Jacobians from dual numbers through the forward's own projection and colour code). The forward
// state is packed by visible index v (device_state.h): the 2D records (per-Gaussian grad2d, Owned segments) are
// indexed by v, the parameters and their gradients by the Gaussian index g.
// Memory: the per-instance records of Owned and SortReduce are freed once reduced to grad2d, before the
// parameter gradients are allocated, so the peak holds the larger of the two, not both. Owned under a record
// limit (BackwardSettings::max_record_bytes) runs blend backward and reduction per strip of tile rows
// (record_strips.h), so only the largest strip's records exist.
#include "cuda/backend.h"
#include "cuda/blend_backward.h"
#include "cuda/record_strips.h"
#include "cuda/common.cuh"
#include "tilegrad/rasterizer/element/projection_backward.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
enum WorkspaceSlot : std::size_t {
  kGrad2d = 16,
  kNonfiniteFlag,
  kStripOffsets,
  kStripOrder,
  kStripScan,
  kStripScratch /* .. + 3 */
};

struct ProjectBackwardArgs {
  std::size_t n;
  int stored_k, active_degree;
  const float *means, *log_scales, *quats, *logits, *sh, *colors;
  ProjectionCamera cam;
  float blur;
  bool antialiased;
  const std::uint32_t *visible_mask, *visible_before;  // v of each Gaussian (visible_index)
  const std::uint8_t* clamped;                         // [V]
  const float* grad2d;  // [V, width] per-Gaussian records
  int width;           // floats per record: 9, or 12 with depth and |dL/dmean2d|
  float *g_means, *g_log_scales, *g_quats, *g_logits, *g_sh, *g_colors, *g_mean2d, *g_mean2d_abs;
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
  const bool valid = g < a.n;
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
  const Vec3<float> mean = valid ? Vec3<float>{{a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]}}
                                 : Vec3<float>::zero();
  ParamGrad<float> pg{};
  if (rendered) {
    const Vec3<float> log_scale{{a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]}};
    const Vec4<float> quat{{a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]}};
    pg = project_gaussian_vjp(mean, log_scale, quat, a.logits[g], a.cam, a.blur, a.antialiased, rec);
  }
  // Colour: precomputed colours or SH coefficients (the direction term adds to the mean gradient).
  const int k_total = a.stored_k * 3;
  if (a.colors) {
    for (int c = 0; c < 3; ++c) row[c] = rec[kGradColor + c];
    warp_store(a.g_colors, first, a.n, 3, rows);
  } else {
    for (int c = 0; c < k_total; ++c) row[c] = 0.0f;  // inactive bands and Gaussians not rendered
    if (rendered)
      sh_color_vjp(a.active_degree, a.sh + g * k_total, mean, a.cam.position, a.clamped[v], rec + kGradColor, pg.mean,
                   row);
    warp_store(a.g_sh, first, a.n, k_total, rows);
  }
  for (int c = 0; c < 3; ++c) row[c] = pg.mean[c];
  warp_store(a.g_means, first, a.n, 3, rows);
  for (int c = 0; c < 3; ++c) row[c] = pg.log_scale[c];
  warp_store(a.g_log_scales, first, a.n, 3, rows);
  for (int c = 0; c < 4; ++c) row[c] = pg.quat[c];
  warp_store(a.g_quats, first, a.n, 4, rows);
  row[0] = pg.opacity_logit;
  warp_store(a.g_logits, first, a.n, 1, rows);
  row[0] = rec[kGradU];
  row[1] = rec[kGradV];
  warp_store(a.g_mean2d, first, a.n, 2, rows);
  if (a.g_mean2d_abs) {
    row[0] = rec[kGradAbsU];
    row[1] = rec[kGradAbsV];
    warp_store(a.g_mean2d_abs, first, a.n, 2, rows);
  }
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
              const float* dl_ddepth, const BackwardSettings& settings, Gradients& grads, Accumulator& acc,
              Workspace& ws, StageTimes* times) {
  const Accumulation accumulation = settings.accumulation;
  // Records carry depth and |dL/dmean2d| only when something needs them.
  const int width = (dl_ddepth || settings.absolute_mean2d) ? kGrad2dWidth : 9;
  const std::size_t n = g.count, visible = s.visible;
  const int stored_k = sh_coefficients(g.sh_degree);
  const bool colors = !g.colors.empty();
  StageClock clock(times != nullptr);

  const bool records = accumulation == Accumulation::Owned || accumulation == Accumulation::SortReduce;
  // Per-Gaussian records of the visible Gaussians: the atomic targets, or the reductions' output.
  float* grad2d = ws.slot<float>(kGrad2d, visible * width);
  if (visible > 0) TG_CUDA_CHECK(cudaMemsetAsync(grad2d, 0, visible * width * sizeof(float)));
  const std::size_t pixels = std::size_t(s.grid.width) * s.grid.height;
  const std::size_t record_bytes = s.instances * std::size_t(width) * sizeof(float);
  const bool striped = accumulation == Accumulation::Owned && settings.max_record_bytes > 0 &&
                       record_bytes > settings.max_record_bytes && pixels > 0;
  const RecordStrips strips =
      striped ? plan_record_strips(s, std::max<std::size_t>(1, settings.max_record_bytes / (width * sizeof(float))))
              : RecordStrips{{0, s.grid.tiles_y}, {0, s.instances}};
  {
    Buffer<float> partial_buffer(records ? strips.most_instances() * width : 0, Device::Cuda);  // freed after
    const std::uint32_t* order = s.tile_order.data();
    std::uint32_t* strip_offsets_buffer = nullptr;
    if (strips.count() > 1) {
      std::uint32_t* grouped = ws.slot<std::uint32_t>(kStripOrder, std::size_t(s.grid.count()));
      strip_tile_order(s, strips, grouped, ws, kStripScratch);
      order = grouped;
      strip_offsets_buffer = ws.slot<std::uint32_t>(kStripOffsets, visible + 1);
    }
    BlendBackwardArgs ba{s.grid,
                         s.settings.thresholds,
                         {s.settings.background[0], s.settings.background[1], s.settings.background[2]},
                         s.projected.data(),
                         s.tile_start.data(),
                         order,
                         s.sorted_visible.data(),
                         s.offsets.data(),
                         s.contributors.data(),
                         s.final_transmittance.data(),
                         dl_dimage,
                         dl_dalpha,
                         dl_ddepth,
                         grad2d,
                         partial_buffer.data(),
                         0};
    for (int k = 0; k < strips.count(); ++k) {
      const int row_begin = strips.rows[k], row_end = strips.rows[k + 1];
      const std::size_t strip_instances = strips.instances_of(k);
      ba.tile_order = order + std::size_t(row_begin) * s.grid.tiles_x;
      ba.row_begin = row_begin;
      if (strip_offsets_buffer && strip_instances > 0) {
        strip_offsets(s, row_begin, row_end, strip_offsets_buffer, ws, kStripScan);
        ba.offsets = strip_offsets_buffer;
      }
      if (strip_instances > 0)
        launch_blend_backward(accumulation, width, ba, (row_end - row_begin) * s.grid.tiles_x, strip_instances);
      clock.mark();

      if (records && strip_instances > 0) {
        const View<const float> values(ba.partial, strip_instances * width, Device::Cuda);
        const View<float> out(grad2d, visible * width, Device::Cuda);
        if (accumulation == Accumulation::Owned) {
          // Each visible Gaussian's slots (in the strip) are contiguous: its offsets are the segments, and no
          // segment is longer than the most tiles any Gaussian touches. The sums add to grad2d strip by strip.
          const View<const std::uint32_t> segments(ba.offsets, visible + 1, Device::Cuda);
          acc.segmented_sum(values, width, segments, out, {false, s.max_tiles});
        } else {
          Contributions in;
          in.values = values;
          in.width = width;
          in.ids = View<const std::uint32_t>(s.sorted_visible.data(), s.instances, Device::Cuda);
          acc.accumulate(Accumulation::SortReduce, in, out, {false});
        }
      }
      clock.mark();
    }
  }

  grads.means = Buffer<float>(n * 3, Device::Cuda);
  grads.log_scales = Buffer<float>(n * 3, Device::Cuda);
  grads.quats = Buffer<float>(n * 4, Device::Cuda);
  grads.opacity_logits = Buffer<float>(n, Device::Cuda);
  grads.sh = Buffer<float>(colors ? 0 : n * stored_k * 3, Device::Cuda);
  grads.colors = Buffer<float>(colors ? n * 3 : 0, Device::Cuda);
  grads.mean2d = Buffer<float>(n * 2, Device::Cuda);
  grads.mean2d_abs = Buffer<float>(settings.absolute_mean2d ? n * 2 : 0, Device::Cuda);
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
  clock.mark();
  if (times) {  // marks: blend and reduce of each strip, then the projection backward
    times->blend_backward = times->reduce = 0;
    for (int k = 0; k < strips.count(); ++k) {
      times->blend_backward += clock.elapsed(std::size_t(2 * k));
      times->reduce += clock.elapsed(std::size_t(2 * k + 1));
    }
    times->project_backward = clock.elapsed(std::size_t(2 * strips.count()));
  }
}

}  // namespace tilegrad::raster::cuda_backend
