// CUDA blend stage: one block per 16x16 tile (or band of one, TileBand), one thread per pixel, Gaussians staged
// through shared memory in batches, front to back (element/blend.h: fragment_at, composite).
#include <cuda_pipeline.h>

#include "cuda/blend.h"
#include "cuda/common.cuh"
#include "cuda/contributors.cuh"
#include "tilegrad/rasterizer/element/blend.h"

namespace tilegrad::raster::cuda_backend {
namespace {

struct BlendArgs {
  TileGrid grid;
  Thresholds thresholds;
  float background[3];
  const float* proj;
  const std::uint32_t *tile_start, *tile_order, *sorted_visible;
  float *image, *alpha, *depth, *final_transmittance;  // depth may be null (not rendered)
  ContributorWriter contributors;
};

// One block per band of a tile (see TileBand), one thread per pixel; each round stages one Gaussian per thread.
// The staging is asynchronous and one batch ahead (cuda_pipeline.h: cp.async on sm_80 and later, plain copies
// before): while the block composites batch k, each thread's copy of its Gaussian of batch k + 1 (its first ten
// record values) and of its index in batch k + 2 are in flight, so a batch costs no load latency. Where few warps
// are left on an SM (the densest tiles, at the end of the kernel) that latency was most of a batch's time. The
// values composited, and their order, are the same.
//
// Dense tiles (sparse_tiles, common.cuh) evaluate GROUP = 4 fragments side by side before compositing them one by
// one: the walk of their longest lists, with few warps left per SM, is bound by each fragment's latency. Sparse
// tiles keep one at a time (GROUP = 1): their loop, with many warps per SM, is bound by issue, and the grouped
// loop's extra instructions cost more than the overlap gains (garden grid 1: blend 0.344 -> 0.364 ms).
template <int PARTS, int GROUP>
__global__ void __launch_bounds__(kTilePixels / PARTS) blend_kernel(BlendArgs a) {
  constexpr int kThreads = TileBand<PARTS>::kThreads, kBatch = kThreads;
  constexpr int kStaged = 10;  // the record's first values: what a fragment reads (record.h)
  constexpr int kGroup = GROUP;
  static_assert(kBatch % kGroup == 0, "a group never spans two batches");
  static_assert(kU < kStaged && kV < kStaged && kA < kStaged && kB < kStaged && kC < kStaged &&
                kOpacity < kStaged && kRed < kStaged && kGreen < kStaged && kBlue < kStaged && kDepth < kStaged);
  __shared__ float4 s_record[2][kBatch][3];  // [buffer][instance]: record values 0..9 (two float4 and a float2)
  __shared__ std::uint32_t s_index[2][kBatch];  // [buffer][thread]: this thread's visible index of a later batch
  const TileBand<PARTS> band(a.grid, a.tile_order);
  const int tile = band.tile, x = band.x, y = band.y;
  const bool inside = x < a.grid.width && y < a.grid.height;
  const float px = x + 0.5f, py = y + 0.5f;
  const std::uint32_t start = a.tile_start[tile], end = a.tile_start[tile + 1];
  const int t = threadIdx.x;
  // Asynchronous copies: this thread's index in the batch at `batch`, and its record once the index is here.
  auto copy_index = [&](std::uint32_t batch, int buffer) {
    if (batch + t < end) __pipeline_memcpy_async(&s_index[buffer][t], a.sorted_visible + batch + t, 4);
  };
  auto copy_record = [&](std::uint32_t batch, int buffer) {
    if (batch + t < end) {
      const float* r = a.proj + std::size_t(s_index[buffer][t]) * kProjWidth;
      __pipeline_memcpy_async(&s_record[buffer][t][0], r, 16);
      __pipeline_memcpy_async(&s_record[buffer][t][1], r + 4, 16);
      __pipeline_memcpy_async(&s_record[buffer][t][2], r + 8, 8);
    }
  };
  copy_index(start, 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  copy_record(start, 0);
  copy_index(start + kBatch, 1);
  __pipeline_commit();
  Composite<float> c;
  std::uint32_t contributors = 0;
  bool done = !inside;
  int buffer = 0;
  for (std::uint32_t batch = start; batch < end; batch += kBatch, buffer ^= 1) {
    // Every thread is past the batch before the last: its buffer may be refilled. The copies of this batch
    // (and this thread's index of the next) are waited for, then made visible to the block.
    if (__syncthreads_count(done) == kThreads) break;  // every pixel of the band is finished
    __pipeline_wait_prior(0);
    __syncthreads();
    copy_record(batch + kBatch, buffer ^ 1);
    copy_index(batch + 2 * kBatch, buffer);
    __pipeline_commit();
    const int count = min(kBatch, int(end - batch));
    if constexpr (kGroup == 1) {
      for (int j = 0; j < count && !done; ++j) {
        const float4 p = s_record[buffer][j][0], q = s_record[buffer][j][1], w = s_record[buffer][j][2];
        const float r[kStaged] = {p.x, p.y, p.z, p.w, q.x, q.y, q.z, q.w, w.x, w.y};
        const Fragment<float> f = fragment_at(splat_of(r), px, py, a.thresholds);
        if (!f.used) continue;
        if (!composite(c, f, color_depth_of(r), a.thresholds)) {
          done = true;
          break;
        }
        contributors = batch + j - start + 1;
      }
    } else {
      for (int j = 0; j < count && !done; j += kGroup) {
        // kGroup fragments evaluated first, side by side: their alphas depend on nothing the pixel carries, so
        // their latencies overlap. Then they are composited one by one, in order.
        Fragment<float> f[kGroup];
        Vec4<float> cd[kGroup];
        bool any = false;
        TG_UNROLL for (int u = 0; u < kGroup; ++u) {
          const float4 p = s_record[buffer][j + u][0], q = s_record[buffer][j + u][1], w = s_record[buffer][j + u][2];
          const float r[kStaged] = {p.x, p.y, p.z, p.w, q.x, q.y, q.z, q.w, w.x, w.y};
          f[u] = fragment_at(splat_of(r), px, py, a.thresholds);
          f[u].used = f[u].used && j + u < count;
          cd[u] = color_depth_of(r);
          any = any || f[u].used;
        }
        if (!any) continue;
        TG_UNROLL for (int u = 0; u < kGroup; ++u) {
          if (!f[u].used) continue;
          if (!composite(c, f[u], cd[u], a.thresholds)) {
            done = true;
            break;
          }
          contributors = batch + j + u - start + 1;
        }
      }
    }
  }
  __pipeline_wait_prior(0);  // no copy outlives the block's shared memory
  if (!inside) return;
  const std::size_t pix = std::size_t(y) * a.grid.width + x;
  for (int k = 0; k < 3; ++k) a.image[3 * pix + k] = c.rgb[k] + c.trans * a.background[k];
  a.alpha[pix] = 1.0f - c.trans;
  if (a.depth) a.depth[pix] = c.depth;
  a.final_transmittance[pix] = c.trans;
  a.contributors.store(end - start, tile, x, y, pix, contributors);
}

}  // namespace

void blend(DeviceState& s, float* image, float* alpha, float* depth) {
  const TileGrid& grid = s.grid();
  if (std::size_t(grid.width) * grid.height == 0) return;
  const RasterSettings& st = s.settings;
  const BlendArgs ba{grid,
                     st.thresholds,
                     {st.background[0], st.background[1], st.background[2]},
                     s.projected.data(),
                     s.tile_start.data(),
                     s.tile_order.data(),
                     s.sorted_visible.data(),
                     image,
                     alpha,
                     depth,
                     s.final_transmittance.data(),
                     contributor_writer(s)};
  const bool sparse = sparse_tiles(s.instances, grid.count());
  with_parts(tile_parts(grid.count()), [&](auto parts) {
    constexpr int P = decltype(parts)::value;
    if (sparse) {
      blend_kernel<P, 1><<<grid.count() * P, kTilePixels / P>>>(ba);
    } else {
      blend_kernel<P, 4><<<grid.count() * P, kTilePixels / P>>>(ba);
    }
  });
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::raster::cuda_backend
