// CUDA forward: project (one thread per Gaussian) -> bin (prefix sum of instance slots; the tile sort is in
// bin.cu) -> blend (one block per 16x16 tile, one thread per pixel, Gaussians staged
// through shared memory in batches, front to back). One device-to-host read per frame: the instance count.
#include <cub/device/device_scan.cuh>

#include "cuda/backend.h"
#include "cuda/bin.h"
#include "cuda/common.cuh"
#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/tiles.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
enum WorkspaceSlot : std::size_t { kTilesTouched = 0, kScanTemp, kCounts };

struct ProjectArgs {
  std::size_t n;
  int stored_k, active_degree;
  const float *means, *log_scales, *quats, *logits, *sh, *colors;
  ProjectionCamera cam;
  TileGrid grid;
  float blur, extent, min_alpha;
  bool antialiased;
  float* proj;
  std::uint8_t* clamped;
  std::uint32_t* tiles_touched;
  std::uint32_t* visible;  // count of Gaussians with at least one tile
};

__device__ bool project_one(const ProjectArgs& a, std::size_t g) {
  a.tiles_touched[g] = 0;
  const Vec3<float> mean{{a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]}};
  const Vec3<float> log_scale{{a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]}};
  const Vec4<float> quat{{a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]}};
  const Projected<float> pr = project_gaussian(mean, log_scale, quat, a.logits[g], a.cam, a.blur, a.antialiased);
  if (!pr.valid) return false;
  const Extents ext =
      footprint_extents(pr.cov2d[0], pr.cov2d[1], pr.cov2d[2], pr.opacity, a.extent, a.min_alpha);
  std::uint8_t mask = 0;
  Vec3<float> rgb;
  if (a.colors) {
    rgb = {{a.colors[3 * g], a.colors[3 * g + 1], a.colors[3 * g + 2]}};
  } else {
    rgb = sh_color(a.active_degree, a.sh + g * a.stored_k * 3, mean, a.cam.position, mask);
  }
  float rec[kProjWidth] = {pr.mean2d[0], pr.mean2d[1], pr.conic[0], pr.conic[1], pr.conic[2], pr.opacity,
                           rgb[0],       rgb[1],       rgb[2],      pr.depth,    ext.x,   ext.y};
  bool finite = true;
#pragma unroll
  for (int c = 0; c < kProjWidth; ++c) finite = finite && isfinite(rec[c]);
  if (!finite) return false;  // NaN or infinite parameters are culled
  const int area = cpu::record_tiles(rec, a.grid).area();
  if (area == 0) return false;
  float* out = a.proj + g * kProjWidth;
#pragma unroll
  for (int c = 0; c < kProjWidth; ++c) out[c] = rec[c];
  a.clamped[g] = mask;
  a.tiles_touched[g] = static_cast<std::uint32_t>(area);
  return true;
}

__global__ void project_kernel(ProjectArgs a) {
  const std::size_t g = global_thread();
  const bool visible = g < a.n && project_one(a, g);
  // The visible count is a statistic for reports; one integer atomic per warp.
  const unsigned votes = __ballot_sync(0xFFFFFFFFu, visible);
  if (cuda::lane_id() == 0 && votes) atomicAdd(a.visible, __popc(votes));
}

struct BlendArgs {
  TileGrid grid;
  Thresholds thresholds;
  float background[3];
  const float* proj;
  const std::uint32_t *tile_start, *sorted_gaussians;
  float *image, *alpha, *depth, *final_transmittance;
  std::uint32_t* contributors;
};

// One block per band of a tile (see TileBand), one thread per pixel; each round stages one Gaussian per thread.
template <int PARTS>
__global__ void __launch_bounds__(kTilePixels / PARTS) blend_kernel(BlendArgs a) {
  constexpr int kThreads = TileBand<PARTS>::kThreads, kBatch = kThreads;
  __shared__ Splat<float> s_splat[kBatch];
  __shared__ float4 s_color_depth[kBatch];
  const TileBand<PARTS> band(a.grid);
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
      const float* r = a.proj + std::size_t(a.sorted_gaussians[i]) * kProjWidth;
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
  a.depth[pix] = depth;
  a.final_transmittance[pix] = trans;
  a.contributors[pix] = contributors;
}

}  // namespace

void forward(const GaussiansView& g, DeviceState& s, ForwardOutput& out, Workspace& ws, StageTimes* times) {
  const std::size_t n = g.count;
  const std::size_t pixels = std::size_t(s.grid.width) * s.grid.height;
  s.projected = Buffer<float>(n * kProjWidth, Device::Cuda);
  s.clamped = Buffer<std::uint8_t>(n, Device::Cuda);
  s.offsets = Buffer<std::uint32_t>(n + 1, Device::Cuda);
  StageClock clock(times != nullptr);

  auto* tiles_touched = ws.slot<std::uint32_t>(kTilesTouched, n + 1);
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
                 s.projected.data(),
                 s.clamped.data(),
                 tiles_touched,
                 nullptr};
  auto* counts = ws.slot<std::uint32_t>(kCounts, 2);  // {visible, instances}
  pa.visible = counts;
  TG_CUDA_CHECK(cudaMemsetAsync(counts, 0, 2 * sizeof(std::uint32_t)));
  cuda::launch(project_kernel, n, kBlock, 0, pa);
  clock.mark();

  // Instance slots: exclusive scan of tiles touched (the extra last element gives the total).
  TG_CUDA_CHECK(cudaMemsetAsync(tiles_touched + n, 0, sizeof(std::uint32_t)));
  std::size_t scan_bytes = 0;
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, tiles_touched, s.offsets.data(), int(n + 1)));
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.slot<std::byte>(kScanTemp, scan_bytes), scan_bytes, tiles_touched,
                                              s.offsets.data(), int(n + 1)));
  TG_CUDA_CHECK(cudaMemcpyAsync(counts + 1, s.offsets.data() + n, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice));
  std::uint32_t host_counts[2] = {0, 0};
  TG_CUDA_CHECK(cudaMemcpy(host_counts, counts, sizeof(host_counts), cudaMemcpyDeviceToHost));
  const std::uint32_t instances = host_counts[1];
  s.instances = instances;
  s.visible = host_counts[0];
  bin_instances(s, n, tiles_touched);
  clock.mark();

  // The per-pixel outputs are allocated once the binning's scratch is gone: the forward's peak is the larger
  // of the two stages, not their sum.
  out.image = Buffer<float>(pixels * 3, Device::Cuda);
  out.alpha = Buffer<float>(pixels, Device::Cuda);
  out.depth = Buffer<float>(pixels, Device::Cuda);
  s.final_transmittance = Buffer<float>(pixels, Device::Cuda);
  s.contributors = Buffer<std::uint32_t>(pixels, Device::Cuda);

  if (pixels > 0) {
    BlendArgs ba{s.grid,
                 s.settings.thresholds,
                 {s.settings.background[0], s.settings.background[1], s.settings.background[2]},
                 s.projected.data(),
                 s.tile_start.data(),
                 s.sorted_gaussians.data(),
                 out.image.data(),
                 out.alpha.data(),
                 out.depth.data(),
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
