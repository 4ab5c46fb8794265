// CUDA blend stage: one block per 16x16 tile (or band of one, TileBand), one thread per pixel, Gaussians staged
// through shared memory in batches, front to back (element/blend.h: fragment_at, composite).
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
template <int PARTS>
__global__ void __launch_bounds__(kTilePixels / PARTS) blend_kernel(BlendArgs a) {
  constexpr int kThreads = TileBand<PARTS>::kThreads, kBatch = kThreads;
  __shared__ Splat<float> s_splat[kBatch];
  __shared__ float4 s_color_depth[kBatch];
  const TileBand<PARTS> band(a.grid, a.tile_order);
  const int tile = band.tile, x = band.x, y = band.y;
  const bool inside = x < a.grid.width && y < a.grid.height;
  const float px = x + 0.5f, py = y + 0.5f;
  const std::uint32_t start = a.tile_start[tile], end = a.tile_start[tile + 1];
  Composite<float> c;
  std::uint32_t contributors = 0;
  bool done = !inside;
  for (std::uint32_t batch = start; batch < end; batch += kBatch) {
    if (__syncthreads_count(done) == kThreads) break;  // every pixel of the band is finished
    const std::uint32_t i = batch + threadIdx.x;
    if (i < end) {
      const float* r = a.proj + std::size_t(a.sorted_visible[i]) * kProjWidth;
      s_splat[threadIdx.x] = splat_of(r);
      s_color_depth[threadIdx.x] = make_float4(r[kRed], r[kGreen], r[kBlue], r[kDepth]);
    }
    __syncthreads();
    const int count = min(kBatch, int(end - batch));
    for (int j = 0; j < count && !done; ++j) {
      const Fragment<float> f = fragment_at(s_splat[j], px, py, a.thresholds);
      if (!f.used) continue;
      const float4 cd = s_color_depth[j];
      if (!composite(c, f, Vec4<float>{{cd.x, cd.y, cd.z, cd.w}}, a.thresholds)) {
        done = true;
        break;
      }
      contributors = batch + j - start + 1;
    }
  }
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
  with_parts(tile_parts(grid.count()), [&](auto parts) {
    constexpr int P = decltype(parts)::value;
    blend_kernel<P><<<grid.count() * P, kTilePixels / P>>>(ba);
  });
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::raster::cuda_backend
