// CUDA blend backward: one block per tile band (see TileBand), or per depth chunk of a dense tile's list
// (depth_chunks.h), one thread per pixel, back to front from the band's last contributor (element/blend.h: the
// reverse sweep, fragment_backward). Each (pixel, instance) pair yields a gradient record (element/record.h),
// which reaches the Gaussians (by visible index v: the forward state is packed, see device_state.h) by one of
// three routes:
//   Atomic          - every pixel atomically adds its record to the Gaussian (the original 3DGS scheme);
//   WarpAggregated  - the warp sums its pixels' records, one lane per component adds atomically (the gsplat
//                     scheme);
//   Owned           - the warp sums, the block combines its warps in a fixed order and writes ONE record per
//                     instance into the instance's own slot: no atomics; the per-Gaussian sum over the
//                     Gaussian's contiguous slots is the AD layer's exact segmented sum.
// The record modes write only the instances some pixel reached (entries before the band's last contributor):
// the caller zeroes the records first (backward.cu), so those no pixel reached read as zeros.
#include <climits>

#include "cuda/blend_backward.h"
#include "cuda/common.cuh"
#include "cuda/depth_chunks.h"
#include "tilegrad/ad/cuda/warp_reduce_scatter.cuh"
#include "tilegrad/rasterizer/element/blend.h"

namespace tilegrad::raster::cuda_backend {
namespace {

// Instances staged per round: the records' partial buffer (batch x warps x W floats) must fit in 48 KB of shared
// memory with the staged splats, so wider records get smaller rounds.
template <int W>
constexpr int batch_for() {
  return W == kGrad2dCoreWidth ? 128 : 64;
}
constexpr unsigned kFull = 0xFFFFFFFFu;

// A staged instance as the inner loop reads it: splat, colour and depth in one 48-byte row, so a fragment takes
// two 16-byte and one 8-byte shared load from one base address.
struct alignas(16) StagedSplat {
  float4 uvab;     // mean2d, conic a, b
  float4 co_rg;    // conic c, opacity, red, green
  float2 b_depth;  // blue, depth
};

__device__ inline StagedSplat stage_splat(const float* r) {
  return {make_float4(r[kU], r[kV], r[kA], r[kB]), make_float4(r[kC], r[kOpacity], r[kRed], r[kGreen]),
          make_float2(r[kBlue], r[kDepth])};
}
__device__ inline Splat<float> splat_of(const StagedSplat& st) {
  return {st.uvab.x, st.uvab.y, st.uvab.z, st.uvab.w, st.co_rg.x, st.co_rg.y};
}
__device__ inline Vec4<float> colour_depth_of(const StagedSplat& st) {
  return {{st.co_rg.z, st.co_rg.w, st.b_depth.x, st.b_depth.y}};
}

// The slot of visible Gaussian v's instance in tile `tile`: its offset plus the tile's row-major index in the
// part of v's rectangle from the band's first row on (the layout of the forward's slots, from the same record
// values; with bands, the band's dense slots of record_strips.h).
__device__ inline std::uint32_t instance_slot(const BlendBackwardArgs& a, std::uint32_t v, int tile) {
  const float* r = a.proj + std::size_t(v) * kProjWidth;
  const TileRect rect = record_tiles(r, a.grid);
  const int tx = tile % a.grid.tiles_x, ty = tile / a.grid.tiles_x;
  return a.offsets[v] + std::uint32_t((ty - max(rect.y0, a.row_begin)) * (rect.x1 - rect.x0) + (tx - rect.x0));
}

// Owned records go to the instance's slot; SortReduce records stay in tile-sorted order (their ids are the
// sorted visible indices). Record modes run whole tiles (one record per instance).
template <Accumulation MODE, int PARTS>
__device__ inline std::uint32_t record_row(const BlendBackwardArgs& a, std::uint32_t entry, std::uint32_t v,
                                           const TileBand<PARTS>& band) {
  static_assert(PARTS == 1, "records are written per whole tile");
  return MODE == Accumulation::Owned ? instance_slot(a, v, band.tile) : entry;
}

// MIN_BLOCKS = 4 (chosen for sparse tiles, see launch_blend_backward) holds whole-tile blocks to 64 registers
// (the warp-summed modes need 71-76; their shared memory allows 4-5 blocks): a few spilled bytes buy a third
// more warps to hide the loop's latency. Band blocks are smaller; the bound leaves them as they are.
template <Accumulation MODE, int W, int PARTS, int MIN_BLOCKS>
__global__ void __launch_bounds__(kTilePixels / PARTS, MIN_BLOCKS) blend_backward_kernel(BlendBackwardArgs a) {
  constexpr int kBatch = batch_for<W>();
  constexpr int kThreads = TileBand<PARTS>::kThreads, kWarps = kThreads / cuda::kWarpSize;
  __shared__ StagedSplat s_splat[kBatch];
  __shared__ std::uint32_t s_slot[kBatch];
  __shared__ std::uint32_t s_visible[kBatch];  // visible index of each staged instance
  constexpr bool kRecords = MODE == Accumulation::Owned || MODE == Accumulation::SortReduce;
  __shared__ float s_partial[kRecords ? kBatch * kWarps * W : 1];
  __shared__ std::uint32_t s_warp_max[kWarps];

  // This block's tile (and band) and depth chunk: instances [chunk_begin, chunk_end) of the tile's list.
  const ChunkOfBlock work = a.chunks.of(blockIdx.x / PARTS);
  if (!work.valid) return;  // the launch is sized by a bound on the chunks (uniform over the block)
  const TileBand<PARTS> band(a.grid, int(a.tile_order[work.position]), int(blockIdx.x) % PARTS);
  const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
  const int x = band.x, y = band.y;
  const bool inside = x < a.grid.width && y < a.grid.height;
  const std::size_t pix = inside ? std::size_t(y) * a.grid.width + x : 0;
  const std::uint32_t start = a.tile_start[band.tile], end = a.tile_start[band.tile + 1];

  const std::uint32_t my_count = inside ? a.contributors.load(end - start, band.tile, x, y, pix) : 0;
  const std::uint32_t warp_max = __reduce_max_sync(kFull, my_count);
  if (lane == 0) s_warp_max[warp] = warp_max;
  __syncthreads();
  std::uint32_t tile_count = 0;
  for (int w = 0; w < kWarps; ++w) tile_count = max(tile_count, s_warp_max[w]);
  const std::uint32_t used_end = start + tile_count;
  const std::uint32_t chunk_begin = a.chunks.length ? start + work.chunk * a.chunks.length : start;
  const std::uint32_t chunk_end = a.chunks.length ? min(end, chunk_begin + a.chunks.length) : end;

  const float t_final = inside ? a.final_transmittance[pix] : 1.0f;
  Vec3<float> d_rgb = Vec3<float>::zero();
  float d_alpha = 0.0f, d_depth = 0.0f;
  if (inside) {
    for (int c = 0; c < 3; ++c) d_rgb[c] = a.d_image[3 * pix + c];
    if (a.d_alpha) d_alpha = a.d_alpha[pix];
    if (a.d_depth) d_depth = a.d_depth[pix];
  }
  ReverseSweep<float> sweep = start_sweep(x, y, t_final, d_rgb, d_alpha, d_depth, a.background);
  // The warp skips the per-fragment division of that term only if all its pixels can (a uniform branch).
  sweep.outside_zero = __all_sync(kFull, sweep.outside_zero);

  // Warp-summed modes take kGroup consecutive instances per step: one reduce-scatter of their kGroup * W values
  // has the latency of one and fewer shuffles than kGroup separate ones (what bounds the densest tiles).
  constexpr int kGroup = MODE == Accumulation::Atomic ? 1 : 32 / W;
  // The instance (within the group) and component whose warp sum this lane ends with, and where it goes in
  // s_partial (relative to the group's first instance): fixed by the lane number, so computed once.
  const cuda::LaneSlot slot = cuda::reduce_scatter_slot<kGroup * W>(lane);
  const int slot_j = slot.index / W;
  const int slot_partial = (slot_j * kWarps + warp) * W + slot.index % W;
  // Fragments evaluated side by side: the replay's, and the group's where registers allow. At 64 registers (sparse
  // tiles) evaluating the group ahead spills 24-32 bytes per thread, and the loop is bound by issue, not latency:
  // one at a time there, each loaded once.
  constexpr int kReplayGroup = 4;
  constexpr int kAhead = MIN_BLOCKS < 4 ? kGroup : 1;
  // Stages entries [batch_begin, batch_end) back to front: s_*[t] holds entry batch_end - 1 - t.
  // full: also the records' slots and visible indices (the chunk's own instances).
  auto stage = [&](std::uint32_t batch_begin, std::uint32_t batch_end, bool full) {
    __syncthreads();
    for (int t = threadIdx.x; t < int(batch_end - batch_begin); t += kThreads) {
      const std::uint32_t e = batch_end - 1 - t;
      const std::uint32_t visible = a.sorted_visible[e];
      s_splat[t] = stage_splat(a.proj + std::size_t(visible) * kProjWidth);
      if (full) {
        if constexpr (kRecords) s_slot[t] = record_row<MODE>(a, e, visible, band);
        s_visible[t] = visible;
      }
    }
    __syncthreads();
  };
  // A later chunk of the tile's list: replay the fragments behind this chunk, state only (sweep_past).
  for (std::uint32_t batch_end = used_end; batch_end > chunk_end;) {
    const std::uint32_t batch_begin = batch_end - chunk_end > kBatch ? batch_end - kBatch : chunk_end;
    const int count = int(batch_end - batch_begin);
    stage(batch_begin, batch_end, false);
    const int j_first = int(batch_end - start) - int(my_count);
    for (int j0 = max(j_first, 0); j0 < count; j0 += kReplayGroup) {
      Fragment<float> f[kReplayGroup];
#pragma unroll
      for (int q = 0; q < kReplayGroup; ++q) {
        f[q] = fragment_at(splat_of(s_splat[min(j0 + q, count - 1)]), sweep.px, sweep.py, a.thresholds);
        f[q].used = f[q].used && j0 + q < count;
      }
#pragma unroll
      for (int q = 0; q < kReplayGroup; ++q) sweep_past(sweep, f[q], colour_depth_of(s_splat[min(j0 + q, count - 1)]));
    }
    batch_end = batch_begin;
  }
  for (std::uint32_t batch_end = min(used_end, chunk_end); batch_end > chunk_begin;) {
    const std::uint32_t batch_begin = batch_end - chunk_begin > kBatch ? batch_end - kBatch : chunk_begin;
    const int count = int(batch_end - batch_begin);
    stage(batch_begin, batch_end, true);
    // This pixel's contributors are the staged instances j >= j_first (entry batch_end - 1 - j within them).
    const int j_first = int(batch_end - start) - int(my_count);
    const int warp_first = __reduce_min_sync(kFull, j_first);
    for (int j0 = 0; j0 < count; j0 += kGroup) {
      float v[kGroup * W];
#pragma unroll
      for (int c = 0; c < kGroup * W; ++c) v[c] = 0.0f;
      unsigned active = 0;  // a pixel of this lane used one of the group's fragments
      if constexpr (kAhead == 1) {
#pragma unroll
        for (int q = 0; q < kGroup; ++q) {
          const int j = j0 + q;
          if (j < count && j >= j_first) {
            const StagedSplat st = s_splat[j];
            active |= unsigned(fragment_backward<W>(sweep, splat_of(st), colour_depth_of(st), a.thresholds, v + q * W));
          }
        }
      } else if (j0 + kGroup > warp_first) {  // some pixel of the warp reaches the group (uniform)
        // The group's fragments are evaluated first, side by side (they depend on nothing the sweep carries, so
        // their latencies overlap), then differentiated one by one, back to front.
        Fragment<float> f[kGroup];
#pragma unroll
        for (int q = 0; q < kGroup; ++q) {
          const int j = j0 + q;
          f[q] = fragment_at(splat_of(s_splat[min(j, count - 1)]), sweep.px, sweep.py, a.thresholds);
          f[q].used = f[q].used && j < count && j >= j_first;
        }
#pragma unroll
        for (int q = 0; q < kGroup; ++q) {
          const StagedSplat& st = s_splat[min(j0 + q, count - 1)];
          const Splat<float> splat = splat_of(st);
          active |= unsigned(fragment_backward<W>(sweep, f[q], splat, colour_depth_of(st), a.thresholds, v + q * W));
        }
      }
      if constexpr (MODE == Accumulation::Atomic) {
        if (active) {
          float* dst = a.grad2d + std::size_t(s_visible[j0]) * W;
#pragma unroll
          for (int c = 0; c < W; ++c) atomicAdd(dst + c, v[c]);
        }
      } else {
        // The warp's sums, one component of one instance per lane (see warp_reduce_scatter.cuh).
        const bool any = __any_sync(kFull, active != 0);
        if constexpr (MODE == Accumulation::WarpAggregated) {
          if (any) {
            const float sum = cuda::warp_reduce_scatter_value(v);
            const int j = j0 + slot.index / W;
            if (slot.owner && j < count) atomicAdd(a.grad2d + std::size_t(s_visible[j]) * W + slot.index % W, sum);
          }
        } else {
          const float sum = any ? cuda::warp_reduce_scatter_value(v) : 0.0f;
          // Records: zeros when the warp had nothing.
          if (slot.owner && j0 + slot_j < count) s_partial[j0 * kWarps * W + slot_partial] = sum;
        }
      }
    }
    if constexpr (kRecords) {
      __syncthreads();
      // One record per instance: the warps' sums in warp order (fixed, so the result is reproducible).
      for (int k = threadIdx.x; k < count * W; k += kThreads) {
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

template <int W, int PARTS, int MIN_BLOCKS>
void launch_width(Accumulation mode, const BlendBackwardArgs& args, int tiles, std::size_t instances) {
  const std::size_t units = args.chunks.launch_units(tiles, instances);
  TG_ASSERT(units * PARTS <= std::size_t(INT_MAX), "blend backward: too many blocks: ", units * PARTS);
  const int blocks = int(units) * PARTS, threads = kTilePixels / PARTS;
  switch (mode) {
    case Accumulation::Atomic:
      blend_backward_kernel<Accumulation::Atomic, W, PARTS, MIN_BLOCKS><<<blocks, threads>>>(args);
      break;
    case Accumulation::WarpAggregated:
      blend_backward_kernel<Accumulation::WarpAggregated, W, PARTS, MIN_BLOCKS><<<blocks, threads>>>(args);
      break;
    case Accumulation::Owned:
    case Accumulation::SortReduce:
      TG_ASSERT(PARTS == 1, "records are written per whole tile");
      if constexpr (PARTS == 1) {
        if (mode == Accumulation::Owned) {
          blend_backward_kernel<Accumulation::Owned, W, 1, MIN_BLOCKS><<<blocks, threads>>>(args);
        } else {
          blend_backward_kernel<Accumulation::SortReduce, W, 1, MIN_BLOCKS><<<blocks, threads>>>(args);
        }
      }
      break;
  }
  TG_CUDA_CHECK_LAUNCH();
}

// The record-writing modes take whole tiles: with bands every band would write its own record per instance, and
// summing the extra records per Gaussian costs more than the finer launch's balance buys back (measured).
int parts_for(Accumulation mode, int tiles) {
  return mode == Accumulation::Owned || mode == Accumulation::SortReduce ? 1 : tile_parts(tiles);
}

}  // namespace

// Occupancy by density (sparse_tiles, common.cuh): with few instances per tile (garden grid 1: 218) 64 registers
// and 4 blocks per SM are faster (Owned blend-bwd 1.564 -> 1.516 ms, WarpAggregated 1.515 -> 1.449 ms); with many
// (grid 5: 456, grid 15: 1,434) the spills cost more than the extra warps give (grid 15: Owned 9.11 -> 9.78 ms,
// WarpAggregated 11.08 -> 11.88 ms in all), so those get 3 blocks: up to 80 registers. (Left to itself, ptxas gives
// the Owned kernel 85 registers once its fragments are evaluated side by side, which allocates as 88 and leaves
// room for only 2 blocks of 8 warps.)

void launch_blend_backward(Accumulation mode, int width, const BlendBackwardArgs& args, int tiles,
                           std::size_t instances) {
  if (tiles == 0) return;
  TG_ASSERT(width == kGrad2dCoreWidth || width == kGrad2dWidth, "record width ", width);
  const bool sparse = sparse_tiles(instances, tiles);
  with_parts(parts_for(mode, tiles), [&](auto parts) {
    constexpr int P = decltype(parts)::value;
    auto run = [&](auto min_blocks) {
      constexpr int M = decltype(min_blocks)::value;
      if (width == kGrad2dWidth) {
        launch_width<kGrad2dWidth, P, M>(mode, args, tiles, instances);
      } else {
        launch_width<kGrad2dCoreWidth, P, M>(mode, args, tiles, instances);
      }
    };
    if (sparse) {
      run(std::integral_constant<int, 4>{});
    } else {
      run(std::integral_constant<int, 3>{});
    }
  });
}

}  // namespace tilegrad::raster::cuda_backend
