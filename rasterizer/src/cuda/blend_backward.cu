// CUDA blend backward: one block per tile, one thread per pixel, back to front from each tile's last
// contributor. Each (pixel, instance) pair yields the 12-float gradient record of projection_backward.h, which
// reaches the Gaussians by one of three routes:
//   Atomic          - every pixel atomically adds its record to the Gaussian (the original 3DGS scheme);
//   WarpAggregated  - the warp sums its pixels' records, lane 0 adds atomically (the gsplat scheme);
//   Owned           - the warp sums, the block combines its warps in a fixed order and writes ONE record per
//                     instance into the instance's own slot: no atomics; the per-Gaussian sum over the
//                     Gaussian's contiguous slots is the AD layer's exact segmented sum.
#include "cuda/backend.h"
#include "cuda/blend_backward.h"
#include "cuda/common.cuh"
#include "tilegrad/rasterizer/element/projection_backward.h"

namespace tilegrad::raster::cuda_backend {
namespace {

constexpr int kWarps = kTilePixels / cuda::kWarpSize;
// Instances staged per round: the Owned partial buffer (batch x warps x W floats) must fit in 48 KB of shared
// memory with the staged splats, so wider records get smaller rounds.
template <int W>
constexpr int batch_for() {
  return W == 9 ? 128 : 64;
}
constexpr unsigned kFull = 0xFFFFFFFFu;

template <int W>
__device__ inline void warp_sum(float (&v)[W]) {
#pragma unroll
  for (int c = 0; c < W; ++c)
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v[c] += __shfl_down_sync(kFull, v[c], offset);
}

// The slot of Gaussian g's instance in tile `tile`: its offset plus the tile's row-major index in g's rectangle
// (the layout emit_kernel produced, from the same record values).
__device__ inline std::uint32_t instance_slot(const BlendBackwardArgs& a, std::uint32_t g, int tile) {
  const float* r = a.proj + std::size_t(g) * kProjWidth;
  const TileRect rect = footprint_tiles(r[cpu::kU], r[cpu::kV], r[cpu::kRadius], a.grid);
  const int tx = tile % a.grid.tiles_x, ty = tile / a.grid.tiles_x;
  return a.offsets[g] + std::uint32_t((ty - rect.y0) * (rect.x1 - rect.x0) + (tx - rect.x0));
}

// Owned records go to the instance's slot; SortReduce records stay in tile-sorted order (their ids are the
// sorted Gaussians).
template <Accumulation MODE>
__device__ inline std::uint32_t record_row(const BlendBackwardArgs& a, std::uint32_t entry, std::uint32_t g, int tile) {
  return MODE == Accumulation::Owned ? instance_slot(a, g, tile) : entry;
}

template <Accumulation MODE, int W>
__global__ void __launch_bounds__(kTilePixels) blend_backward_kernel(BlendBackwardArgs a) {
  static_assert(W == 9 || W == kGrad2dWidth, "records hold 9 or 12 floats");
  constexpr bool kExtra = W == kGrad2dWidth;  // depth and |dL/dmean2d| as well
  constexpr int kBatch = batch_for<W>();
  __shared__ Splat<float> s_splat[kBatch];
  __shared__ float4 s_color_depth[kBatch];
  __shared__ std::uint32_t s_slot[kBatch];
  __shared__ std::uint32_t s_gaussian[kBatch];
  constexpr bool kRecords = MODE == Accumulation::Owned || MODE == Accumulation::SortReduce;
  __shared__ float s_partial[kRecords ? kBatch * kWarps * W : 1];
  __shared__ std::uint32_t s_warp_max[kWarps];

  const int tile = blockIdx.x;
  const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
  const int x = (tile % a.grid.tiles_x) * kTileSize + threadIdx.x % kTileSize;
  const int y = (tile / a.grid.tiles_x) * kTileSize + threadIdx.x / kTileSize;
  const bool inside = x < a.grid.width && y < a.grid.height;
  const std::size_t pix = inside ? std::size_t(y) * a.grid.width + x : 0;
  const float px = x + 0.5f, py = y + 0.5f;
  const std::uint32_t start = a.tile_start[tile], end = a.tile_start[tile + 1];

  const std::uint32_t my_count = inside ? a.contributors[pix] : 0;
  const std::uint32_t warp_max = __reduce_max_sync(kFull, my_count);
  if (lane == 0) s_warp_max[warp] = warp_max;
  __syncthreads();
  std::uint32_t tile_count = 0;
  for (int w = 0; w < kWarps; ++w) tile_count = max(tile_count, s_warp_max[w]);
  const std::uint32_t used_end = start + tile_count;

  if constexpr (kRecords) {
    // Instances no pixel reached still own a record: it must hold zeros.
    for (std::uint32_t e = used_end + threadIdx.x; e < end; e += kTilePixels) {
      float* row = a.partial + std::size_t(record_row<MODE>(a, e, a.sorted_gaussians[e], tile)) * W;
#pragma unroll
      for (int c = 0; c < W; ++c) row[c] = 0.0f;
    }
  }

  const float t_final = inside ? a.final_transmittance[pix] : 1.0f;
  float g_rgb[3] = {0.0f, 0.0f, 0.0f}, g_alpha_out = 0.0f, g_depth = 0.0f;
  if (inside) {
    for (int c = 0; c < 3; ++c) g_rgb[c] = a.dl_dimage[3 * pix + c];
    if (a.dl_dalpha) g_alpha_out = a.dl_dalpha[pix];
    if (a.dl_ddepth) g_depth = a.dl_ddepth[pix];
  }
  const float g_background = g_rgb[0] * a.background[0] + g_rgb[1] * a.background[1] + g_rgb[2] * a.background[2];
  float trans = t_final;
  float behind[4] = {0.0f, 0.0f, 0.0f, 0.0f};

  for (std::uint32_t batch_end = used_end; batch_end > start;) {
    const std::uint32_t batch_begin = batch_end - start > kBatch ? batch_end - kBatch : start;
    const int count = int(batch_end - batch_begin);
    __syncthreads();
    if (threadIdx.x < count) {  // s_*[j] holds entry batch_end - 1 - j: back to front
      const std::uint32_t e = batch_end - 1 - threadIdx.x;
      const std::uint32_t g = a.sorted_gaussians[e];
      const float* r = a.proj + std::size_t(g) * kProjWidth;
      s_splat[threadIdx.x] = splat_of(r);
      s_color_depth[threadIdx.x] = make_float4(r[cpu::kRed], r[cpu::kGreen], r[cpu::kBlue], r[cpu::kDepth]);
      if constexpr (kRecords) s_slot[threadIdx.x] = record_row<MODE>(a, e, g, tile);
      s_gaussian[threadIdx.x] = g;
    }
    __syncthreads();
    for (int j = 0; j < count; ++j) {
      const std::uint32_t local = batch_end - 1 - j - start;
      float v[W];
#pragma unroll
      for (int c = 0; c < W; ++c) v[c] = 0.0f;
      bool active = false;
      if (local < my_count) {
        const Splat<float> sp = s_splat[j];
        const Fragment<float> f = fragment_at(sp, px, py, a.thresholds);
        if (f.used) {
          active = true;
          const float4 cd = s_color_depth[j];
          const float col[4] = {cd.x, cd.y, cd.z, cd.w};
          const float one_minus = 1.0f - f.alpha;
          trans = trans / one_minus;
          const float weight = f.alpha * trans;
          float g_a = 0.0f;
#pragma unroll
          for (int c = 0; c < 3; ++c) {
            v[kGradColor + c] = weight * g_rgb[c];
            g_a += (col[c] - behind[c]) * g_rgb[c];
          }
          if constexpr (kExtra) v[kGradDepth] = weight * g_depth;
          g_a += (col[3] - behind[3]) * g_depth;
          g_a = g_a * trans + (g_alpha_out - g_background) * t_final / one_minus;
#pragma unroll
          for (int c = 0; c < 4; ++c) behind[c] = f.alpha * col[c] + one_minus * behind[c];
          if (!f.clamped) {
            v[kGradOpacity] = g_a * f.weight;
            const float g_power = g_a * f.alpha;
            const float g_u = -g_power * (sp.a * f.dx + sp.b * f.dy);
            const float g_v = -g_power * (sp.c * f.dy + sp.b * f.dx);
            v[kGradU] = g_u;
            v[kGradV] = g_v;
            if constexpr (kExtra) {
              v[kGradAbsU] = fabsf(g_u);
              v[kGradAbsV] = fabsf(g_v);
            }
            v[kGradConicA] = -0.5f * g_power * f.dx * f.dx;
            v[kGradConicB] = -g_power * f.dx * f.dy;
            v[kGradConicC] = -0.5f * g_power * f.dy * f.dy;
          }
        }
      }
      if constexpr (MODE == Accumulation::Atomic) {
        if (active) {
          float* dst = a.grad2d + std::size_t(s_gaussian[j]) * W;
#pragma unroll
          for (int c = 0; c < W; ++c) atomicAdd(dst + c, v[c]);
        }
      } else {
        const bool any = __any_sync(kFull, active);
        if (any) warp_sum(v);
        if constexpr (MODE == Accumulation::WarpAggregated) {
          if (any && lane == 0) {
            float* dst = a.grad2d + std::size_t(s_gaussian[j]) * W;
#pragma unroll
            for (int c = 0; c < W; ++c) atomicAdd(dst + c, v[c]);
          }
        } else if (lane == 0) {  // Owned: zeros when the warp had nothing
          float* dst = s_partial + (j * kWarps + warp) * W;
#pragma unroll
          for (int c = 0; c < W; ++c) dst[c] = any ? v[c] : 0.0f;
        }
      }
    }
    if constexpr (kRecords) {
      __syncthreads();
      // One record per instance: the warps' sums in warp order (fixed, so the result is reproducible).
      for (int k = threadIdx.x; k < count * W; k += kTilePixels) {
        const int j = k / W, c = k % W;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += s_partial[(j * kWarps + w) * W + c];
        a.partial[std::size_t(s_slot[j]) * W + c] = sum;
      }
    }
    batch_end = batch_begin;
  }
}

template <int W>
void launch_width(Accumulation mode, const BlendBackwardArgs& args, int tiles) {
  switch (mode) {
    case Accumulation::Atomic: blend_backward_kernel<Accumulation::Atomic, W><<<tiles, kTilePixels>>>(args); break;
    case Accumulation::WarpAggregated:
      blend_backward_kernel<Accumulation::WarpAggregated, W><<<tiles, kTilePixels>>>(args);
      break;
    case Accumulation::Owned: blend_backward_kernel<Accumulation::Owned, W><<<tiles, kTilePixels>>>(args); break;
    case Accumulation::SortReduce:
      blend_backward_kernel<Accumulation::SortReduce, W><<<tiles, kTilePixels>>>(args);
      break;
  }
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_blend_backward(Accumulation mode, int width, const BlendBackwardArgs& args, int tiles) {
  if (tiles == 0) return;
  if (width == kGrad2dWidth) {
    launch_width<kGrad2dWidth>(mode, args, tiles);
  } else {
    TG_ASSERT(width == 9, "record width ", width);
    launch_width<9>(mode, args, tiles);
  }
}

}  // namespace tilegrad::raster::cuda_backend
