// CUDA forward: project -> bin (prefix sum of instance slots; the tile sort is in bin.cu) -> blend (one block per
// 16x16 tile, one thread per pixel, Gaussians staged through shared memory in batches, front to back).
// The per-Gaussian state is packed (device_state.h), so projection takes two passes:
//   1. one thread per Gaussian decides visibility and stores one bit of it (a ballot word per warp), adding its
//      tiles to the instance count; a scan of the words' bit counts numbers the visible Gaussians v in index
//      order. One device-to-host read per frame (the visible and instance counts) sizes the packed buffers;
//   2. one thread per visible Gaussian repeats its projection and writes the record and tile count at v; a scan
//      of the tile counts gives each visible Gaussian its instance slots.
// Repeating the visible projections is cheaper than keeping a record for every Gaussian: on large scenes most
// Gaussians are culled, and their records were most of the forward's memory.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/backend.h"
#include "cuda/bin.h"
#include "cuda/common.cuh"
#include "cuda/run_cub.h"
#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/tiles.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
using U32 = std::uint32_t;
enum WorkspaceSlot : std::size_t { kScanTemp = 0, kCounts, kTileOrder /* .. + 3 */ };

struct ProjectArgs {
  std::size_t n;  // threads: Gaussians (pass 1) or visible Gaussians (pass 2)
  int stored_k, active_degree;
  const float *means, *log_scales, *quats, *logits, *sh, *colors;
  ProjectionCamera cam;
  TileGrid grid;
  float blur, extent, min_alpha;
  bool antialiased;
  // Pass 1, one thread per Gaussian: visibility bits, the instance count and the most tiles of one Gaussian.
  U32* visible_mask;  // [ceil(N / 32)]
  U32* instances;
  U32* max_tiles;
  // Pass 2, one thread per visible Gaussian v (ids non-null): its record at v.
  const U32* ids;  // [V] Gaussian of each visible index
  float* proj;
  std::uint8_t* clamped;
  U32* tiles;  // [V] tiles touched
};

// Gaussian g's record, colour-clamp mask and tile count; 0 tiles when it is culled (behind the near plane or
// beyond the far one, degenerate, non-finite record from NaN or infinite parameters, no tile).
struct Projection {
  float rec[kProjWidth];
  std::uint8_t mask;
  int tiles;
};

__device__ Projection project_one(const ProjectArgs& a, std::size_t g) {
  Projection p{};
  const Vec3<float> mean{{a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]}};
  const Vec3<float> log_scale{{a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]}};
  const Vec4<float> quat{{a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]}};
  const Projected<float> pr = project_gaussian(mean, log_scale, quat, a.logits[g], a.cam, a.blur, a.antialiased);
  if (!pr.valid) return p;
  const Extents ext =
      footprint_extents(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], pr.opacity, a.extent, a.min_alpha);
  Vec3<float> rgb;
  if (a.colors) {
    rgb = {{a.colors[3 * g], a.colors[3 * g + 1], a.colors[3 * g + 2]}};
  } else {
    rgb = sh_color(a.active_degree, a.sh + g * a.stored_k * 3, mean, a.cam.position, p.mask);
  }
  const float rec[kProjWidth] = {pr.mean2d[0], pr.mean2d[1], pr.conic[0], pr.conic[1], pr.conic[2], pr.opacity,
                                 rgb[0],       rgb[1],       rgb[2],      pr.depth,    ext.x,   ext.y};
  bool finite = true;
#pragma unroll
  for (int c = 0; c < kProjWidth; ++c) finite = finite && isfinite(rec[c]);
  if (!finite) return p;  // NaN or infinite parameters are culled
  p.tiles = cpu::record_tiles(rec, a.grid).area();
#pragma unroll
  for (int c = 0; c < kProjWidth; ++c) p.rec[c] = rec[c];
  return p;
}

// Both passes run this one kernel, through one call of project_one: pass 2 repeats pass 1's arithmetic in the
// same compiled code, so it keeps every Gaussian pass 1 kept, with the same tile counts; the instance count read
// after pass 1 sizes the buffers that pass 2's slots index.
__global__ void project_kernel(ProjectArgs a) {
  const std::size_t i = global_thread();
  const bool valid = i < a.n, store = a.ids != nullptr;
  Projection p{};
  if (valid) p = project_one(a, store ? a.ids[i] : i);
  if (store) {
    if (!valid) return;
    float* out = a.proj + i * kProjWidth;
#pragma unroll
    for (int c = 0; c < kProjWidth; ++c) out[c] = p.rec[c];
    a.clamped[i] = p.mask;
    a.tiles[i] = static_cast<U32>(p.tiles);
    return;
  }
  // One visibility word per warp (warps start at multiples of 32) and one integer atomic per warp for the
  // instance count: exact, so the same on every run.
  const unsigned votes = __ballot_sync(0xFFFFFFFFu, p.tiles != 0);
  const unsigned tiles = __reduce_add_sync(0xFFFFFFFFu, static_cast<unsigned>(p.tiles));
  const unsigned most = __reduce_max_sync(0xFFFFFFFFu, static_cast<unsigned>(p.tiles));
  if (cuda::lane_id() == 0 && valid) {
    a.visible_mask[i / 32] = votes;
    if (tiles) {
      atomicAdd(a.instances, tiles);
      atomicMax(a.max_tiles, most);
    }
  }
}

// Visible Gaussians in visibility word w; 0 past the last word (the scan's extra element gives V).
struct WordCount {
  const U32* mask;
  std::size_t words;
  __device__ U32 operator()(U32 w) const { return w < words ? U32(__popc(mask[w])) : 0u; }
};

// ids[v] = the Gaussian with visible index v.
__global__ void visible_ids_kernel(std::size_t n, const U32* mask, const U32* before, U32* ids) {
  const std::size_t g = global_thread();
  if (g >= n) return;
  const VisibleIndex vi = visible_index(mask, before, g);
  if (vi.visible) ids[vi.v] = static_cast<U32>(g);
}

// Exclusive sum of count values from `in` into `out` (may be `in`), with temporary storage in workspace slot
// kScanTemp.
template <class In>
void exclusive_sum(In in, U32* out, std::size_t count, Workspace& ws) {
  run_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, static_cast<int>(count));
      },
      ws, kScanTemp);
}

struct BlendArgs {
  TileGrid grid;
  Thresholds thresholds;
  float background[3];
  const float* proj;
  const std::uint32_t *tile_start, *tile_order, *sorted_visible;
  float *image, *alpha, *depth, *final_transmittance;  // depth may be null (not rendered)
  std::uint32_t* contributors;
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
  float trans = 1.0f, rgb[3] = {0.0f, 0.0f, 0.0f}, depth = 0.0f;
  std::uint32_t contributors = 0;
  bool done = !inside;
  for (std::uint32_t batch = start; batch < end; batch += kBatch) {
    if (__syncthreads_count(done) == kThreads) break;  // every pixel of the band is finished
    const std::uint32_t i = batch + threadIdx.x;
    if (i < end) {
      const float* r = a.proj + std::size_t(a.sorted_visible[i]) * kProjWidth;
      s_splat[threadIdx.x] = splat_of(r);
      s_color_depth[threadIdx.x] = make_float4(r[cpu::kRed], r[cpu::kGreen], r[cpu::kBlue], r[cpu::kDepth]);
    }
    __syncthreads();
    const int count = min(kBatch, int(end - batch));
    for (int j = 0; j < count && !done; ++j) {
      const Fragment<float> f = fragment_at(s_splat[j], px, py, a.thresholds);
      if (!f.used) continue;
      const float next = trans * (1.0f - f.alpha);
      if (next < a.thresholds.min_transmittance) {
        done = true;
        break;
      }
      const float w = f.alpha * trans;
      const float4 cd = s_color_depth[j];
      rgb[0] += w * cd.x;
      rgb[1] += w * cd.y;
      rgb[2] += w * cd.z;
      depth += w * cd.w;
      trans = next;
      contributors = batch + j - start + 1;
    }
  }
  if (!inside) return;
  const std::size_t pix = std::size_t(y) * a.grid.width + x;
  for (int c = 0; c < 3; ++c) a.image[3 * pix + c] = rgb[c] + trans * a.background[c];
  a.alpha[pix] = 1.0f - trans;
  if (a.depth) a.depth[pix] = depth;
  a.final_transmittance[pix] = trans;
  a.contributors[pix] = contributors;
}

}  // namespace

void forward(const GaussiansView& g, DeviceState& s, ForwardOutput& out, Workspace& ws, StageTimes* times) {
  const std::size_t n = g.count, words = (n + 31) / 32;
  const std::size_t pixels = std::size_t(s.grid.width) * s.grid.height;
  StageClock clock(times != nullptr);

  ProjectArgs pa{n,
                 sh_coefficients(g.sh_degree),
                 s.active_degree,
                 g.means.data(),
                 g.log_scales.data(),
                 g.quats.data(),
                 g.opacity_logits.data(),
                 g.colors.empty() ? g.sh.data() : nullptr,
                 g.colors.empty() ? nullptr : g.colors.data(),
                 s.camera,
                 s.grid,
                 s.settings.blur,
                 s.settings.thresholds.extent_sigmas,
                 s.settings.thresholds.min_alpha,
                 s.settings.antialiased,
                 nullptr,
                 nullptr,
                 nullptr,
                 nullptr,
                 nullptr,
                 nullptr,
                 nullptr};
  // Pass 1 over all Gaussians, then their visible indices (the extra last element of the scan gives V).
  s.visible_mask = Buffer<U32>(words, Device::Cuda);
  s.visible_before = Buffer<U32>(words + 1, Device::Cuda);
  auto* counts = ws.slot<U32>(kCounts, 3);  // {visible, instances, most tiles of one Gaussian}
  TG_CUDA_CHECK(cudaMemsetAsync(counts, 0, 3 * sizeof(U32)));
  pa.visible_mask = s.visible_mask.data();
  pa.instances = counts + 1;
  pa.max_tiles = counts + 2;
  cuda::launch(project_kernel, n, kBlock, 0, pa);
  exclusive_sum(thrust::make_transform_iterator(thrust::counting_iterator<U32>(0), WordCount{pa.visible_mask, words}),
                s.visible_before.data(), words + 1, ws);
  TG_CUDA_CHECK(cudaMemcpyAsync(counts, s.visible_before.data() + words, sizeof(U32), cudaMemcpyDeviceToDevice));
  U32 host_counts[3] = {0, 0, 0};
  TG_CUDA_CHECK(cudaMemcpy(host_counts, counts, sizeof(host_counts), cudaMemcpyDeviceToHost));
  s.visible = host_counts[0];
  s.instances = host_counts[1];
  s.max_tiles = host_counts[2];

  // Pass 2 over the visible Gaussians: records and tile counts at v.
  const std::size_t visible = s.visible;
  s.projected = Buffer<float>(visible * kProjWidth, Device::Cuda);
  s.clamped = Buffer<std::uint8_t>(visible, Device::Cuda);
  s.offsets = Buffer<U32>(visible + 1, Device::Cuda);
  if (visible > 0) {
    Buffer<U32> ids(visible, Device::Cuda);  // needed by this pass only
    cuda::launch(visible_ids_kernel, n, kBlock, 0, n, pa.visible_mask, s.visible_before.data(), ids.data());
    pa.n = visible;
    pa.ids = ids.data();
    pa.proj = s.projected.data();
    pa.clamped = s.clamped.data();
    pa.tiles = s.offsets.data();
    cuda::launch(project_kernel, visible, kBlock, 0, pa);
  }
  clock.mark();

  // Instance slots: exclusive scan of the tile counts in place (the extra last element gives I, which pass 1
  // counted already).
  TG_CUDA_CHECK(cudaMemsetAsync(s.offsets.data() + visible, 0, sizeof(U32)));
  if (visible > 0) exclusive_sum(s.offsets.data(), s.offsets.data(), visible + 1, ws);
  bin_instances(s);
  order_tiles(s, ws, kTileOrder);  // after the binning's scratch is freed
  clock.mark();

  // The per-pixel outputs are allocated once the binning's scratch is gone: the forward's peak is the larger
  // of the two stages, not their sum.
  out.image = Buffer<float>(pixels * 3, Device::Cuda);
  out.alpha = Buffer<float>(pixels, Device::Cuda);
  out.depth = Buffer<float>(s.settings.render_depth ? pixels : 0, Device::Cuda);
  s.final_transmittance = Buffer<float>(pixels, Device::Cuda);
  s.contributors = Buffer<std::uint32_t>(pixels, Device::Cuda);

  if (pixels > 0) {
    BlendArgs ba{s.grid,
                 s.settings.thresholds,
                 {s.settings.background[0], s.settings.background[1], s.settings.background[2]},
                 s.projected.data(),
                 s.tile_start.data(),
                 s.tile_order.data(),
                 s.sorted_visible.data(),
                 out.image.data(),
                 out.alpha.data(),
                 s.settings.render_depth ? out.depth.data() : nullptr,
                 s.final_transmittance.data(),
                 s.contributors.data()};
    with_parts(tile_parts(s.grid.count()), [&](auto parts) {
      constexpr int P = decltype(parts)::value;
      blend_kernel<P><<<s.grid.count() * P, kTilePixels / P>>>(ba);
    });
    TG_CUDA_CHECK_LAUNCH();
  }
  clock.mark();
  if (times) {
    times->project = clock.elapsed(0);
    times->sort = clock.elapsed(1);
    times->blend = clock.elapsed(2);
  }
}

}  // namespace tilegrad::raster::cuda_backend
