// CUDA interior backward: one block per 16 x 16 tile, one thread per pixel, every sample traced (value
// pass) and replayed with duals per sphere it touches. The rows leave through the chosen sink:
//   Atomic          atomicAdd per component;
//   WarpAggregated  equal ids combined in the warp, then atomics (ad/cuda/accumulate_device.cuh);
//   Records         one (id, row) record per sample slot, for SortReduce;
//   Owned           no atomics: each warp sums its rows per sphere in registers (deterministic shuffles)
//                   into its own shared-memory partials, the block adds its 8 warps in a fixed order and
//                   writes one partial per listed sphere into the tile's slot of that sphere's segment.
//                   With one hard vertex (primary, direct) and several samples each thread first adds its
//                   samples' rows in registers while a slot keeps the same sphere, and a row enters the warp
//                   sum only when the sphere changes or after the last sample: inside a sphere's image one warp
//                   sum per slot and pixel instead of one per sample. At one sample there is nothing to hold,
//                   and a kernel without the held rows keeps its registers for occupancy.
#include <algorithm>
#include <cstdint>

#include "../layout.h"
#include "kernels.h"
#include "tilegrad/ad/cuda/accumulate_device.cuh"
#include "tilegrad/ad/cuda/warp_sum_by_key.cuh"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/pixel_sample.h"

namespace tilegrad::pathtracer::cuda_backend {
namespace {

constexpr int kBlock = kTileSize * kTileSize;
constexpr int kWarps = kBlock / 32;
constexpr std::uint32_t kNoKey = 0xFFFFFFFFu;
constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr int kHeldSlots = 2;  // contribution slots of a one-vertex hard sample (max_involved: always 2)

// Position of id in the ascending table, or -1.
__device__ inline int find(const std::uint32_t* table, int n, std::uint32_t id) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (table[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && table[lo] == id ? lo : -1;
}

// HOLD: the held rows (Owned, one hard vertex, more than one sample). One-vertex hard kernels with held rows
// are held to 128 registers (two blocks per SM): the held rows would otherwise take them to one block per SM;
// they spill to local memory instead, touched once per sample. Without held rows they run three blocks per SM
// (80 registers, some spilled): measured faster than two at one sample per pixel.
//
// BY_BLOCK (Owned, one hard vertex, one sample, at most kTileCapacity spheres; a.block_rows > 0): the grid
// is a.block_rows blocks, block b works through tiles tile_order[b], tile_order[b + gridDim.x], ... (dealt
// for balance), its partials are indexed by sphere id and kept over all of its tiles, and it writes one row
// per sphere at the end (no tile tables, no search). Otherwise one block per tile, and Owned writes one row
// per tile and listed sphere.
//
// The general hard kernel (MAX_DEPTH = kMaxDepth) also samples the dormant lights when the scene view lists
// them, for paths and for one vertex alike (a.slots contributions per sample); the one-vertex kernels carry
// no dormant-light code.
template <Sink SINK, bool SOFT, int MAX_DEPTH, bool HOLD, bool BY_BLOCK>
__global__ void __launch_bounds__(kBlock, !SOFT && MAX_DEPTH == 1 ? (HOLD ? 2 : 3) : 1) interior_kernel(InteriorArgs a) {
  constexpr bool kDormant = !SOFT && MAX_DEPTH > 1;
  static_assert(!HOLD || (SINK == Sink::Owned && !SOFT && MAX_DEPTH == 1), "rows are held for one-vertex Owned only");
  static_assert(!BY_BLOCK || (SINK == Sink::Owned && !HOLD), "block rows are for Owned without held rows");
  constexpr bool kOwned = SINK == Sink::Owned;
  __shared__ float part[kOwned ? kWarps : 1][kOwned ? kTileCapacity : 1][kSphereParams];
  __shared__ std::uint32_t table[kOwned ? kTileCapacity : 1];
  const SceneView<float>& sc = a.scene;
  const RenderSettings& st = a.settings;
  const int warp = static_cast<int>(threadIdx.x / 32);
  const float weight = 1.0f / static_cast<float>(st.spp);

  int listed = 0;  // Owned: partial rows in use (the tile's listed spheres, or every sphere by block)
  std::uint32_t table_begin = 0;
  auto zero_partials = [&] {
    for (int i = threadIdx.x; i < kWarps * listed * kSphereParams; i += kBlock) {
      const int w = i / (listed * kSphereParams), e = i % (listed * kSphereParams);
      part[w][e / kSphereParams][e % kSphereParams] = 0.0f;
    }
    __syncthreads();
  };
  // The block's partials (its 8 warps added in a fixed order) to row row_of(j) of each partial j.
  auto write_partials = [&](auto row_of) {
    __syncthreads();
    for (int e = threadIdx.x; e < listed * kSphereParams; e += kBlock) {
      const int j = e / kSphereParams, c = e % kSphereParams;
      float sum = part[0][j][c];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) sum += part[w][j][c];
      a.owned[static_cast<std::size_t>(row_of(j)) * kSphereParams + c] = sum;
    }
  };
  if constexpr (BY_BLOCK) {
    listed = sc.num_spheres;
    zero_partials();
  }

  // One tile: t is the tile's index in this launch.
  auto run_tile = [&](int t) {
    const int tile = BY_BLOCK ? static_cast<int>(a.tile_order[t]) : a.first_tile + t;
    const int px = (tile % a.tiles_x) * kTileSize + static_cast<int>(threadIdx.x % kTileSize);
    const int py = (tile / a.tiles_x) * kTileSize + static_cast<int>(threadIdx.x / kTileSize);
    if constexpr (kOwned && !BY_BLOCK) {
      table_begin = a.tile_offsets[tile];
      listed = static_cast<int>(a.tile_offsets[tile + 1] - table_begin);
      for (int i = threadIdx.x; i < listed; i += kBlock) table[i] = a.tile_ids[table_begin + i];
      zero_partials();
    }

    Vec3<float> g = Vec3<float>::zero();
    if (px < sc.camera.width && py < sc.camera.height) {
      const float* a_px = a.d_image + (static_cast<std::size_t>(py) * sc.camera.width + px) * 3;
      g = Vec3<float>{{a_px[0], a_px[1], a_px[2]}};
    }
    const bool active = g[0] != 0.0f || g[1] != 0.0f || g[2] != 0.0f;

    // Owned: the warp's sum of the rows of equal key into this warp's partial of that sphere (all lanes call).
    auto owned_add = [&](std::uint32_t id, float (&row)[kSphereParams]) {
      int j = -1;
      if (id != kNoKey) {
        j = BY_BLOCK ? static_cast<int>(id) : find(table, listed, id);
        if (j < 0) *a.missing = 1u;
      }
      cuda::warp_sum_by_key(id, row, [&](int c, float v) {
        if (j >= 0) part[warp][j][c] += v;
      });
      __syncwarp();  // the next call's writer of the same sphere may be another lane of this warp
    };

    std::uint32_t held_id[kHeldSlots];
    float held[kHeldSlots][kSphereParams];
#pragma unroll
    for (int k = 0; k < kHeldSlots; ++k) {
      held_id[k] = kNoKey;
#pragma unroll
      for (int c = 0; c < kSphereParams; ++c) held[k][c] = 0.0f;
    }

    for (int s = 0; s < st.spp; ++s) {
      PixelSample<float> ps;
      int count = 0;
      if (active) {
        ps.template trace_as<SOFT, MAX_DEPTH, kDormant>(sc, st, px, py, s);
        count = ps.count;
      }
#pragma unroll
      for (int k = 0; k < (MAX_DEPTH == 1 && !SOFT ? kHeldSlots : a.slots); ++k) {  // uniform over the warp: the collective sinks need every lane
        float row[kSphereParams];
        const bool valid = k < count;
        std::uint32_t id = kNoKey;
        if (valid) {
          ps.template gradient_row_as<SOFT, MAX_DEPTH, kDormant>(sc, st, k, g, weight, row);
          id = static_cast<std::uint32_t>(ps.sphere(k));
        } else {
#pragma unroll
          for (int c = 0; c < kSphereParams; ++c) row[c] = 0.0f;
        }
        if constexpr (SINK == Sink::Atomic) {
          if (valid) cuda::atomic_add_row(a.grad, id, row, kSphereParams);
        } else if constexpr (SINK == Sink::WarpAggregated) {
          cuda::warp_aggregated_add_row(a.grad, valid ? id : 0u, row, kSphereParams, valid);
        } else if constexpr (SINK == Sink::Records) {
          // Slot-major: consecutive threads write consecutive records.
          const std::size_t chunk_pixels = static_cast<std::size_t>(a.num_tiles) * kBlock;
          const std::size_t i = (static_cast<std::size_t>(s) * a.slots + k) * chunk_pixels +
                                static_cast<std::size_t>(t) * kBlock + threadIdx.x;
          a.ids[i] = valid ? id : a.sentinel;
#pragma unroll
          for (int c = 0; c < kSphereParams; ++c) a.values[i * kSphereParams + c] = row[c];
        } else if constexpr (HOLD) {
          // A lane whose slot changes sphere hands its held row on first (a warp-uniform decision).
          const bool change = valid && held_id[k] != kNoKey && held_id[k] != id;
          if (__any_sync(kFullMask, change)) {
            float out[kSphereParams];
#pragma unroll
            for (int c = 0; c < kSphereParams; ++c) out[c] = change ? held[k][c] : 0.0f;
            owned_add(change ? held_id[k] : kNoKey, out);
            if (change) {
              held_id[k] = kNoKey;
#pragma unroll
              for (int c = 0; c < kSphereParams; ++c) held[k][c] = 0.0f;
            }
          }
          if (valid) {
            held_id[k] = id;
#pragma unroll
            for (int c = 0; c < kSphereParams; ++c) held[k][c] += row[c];
          }
        } else {
          owned_add(id, row);
        }
      }
    }

    if constexpr (HOLD) {
#pragma unroll
      for (int k = 0; k < kHeldSlots; ++k) owned_add(held_id[k], held[k]);
    }
    if constexpr (kOwned && !BY_BLOCK) write_partials([&](int j) { return a.pair_slot[table_begin + j]; });
  };

  if constexpr (BY_BLOCK) {
    for (int t = static_cast<int>(blockIdx.x); t < a.num_tiles; t += static_cast<int>(gridDim.x)) run_tile(t);
    write_partials([&](int j) { return a.segments[j] + blockIdx.x; });
  } else {
    run_tile(static_cast<int>(blockIdx.x));
  }
}

template <bool SOFT, int MAX_DEPTH>
void launch_as(Sink sink, const InteriorArgs& a) {
  constexpr bool kOneVertex = !SOFT && MAX_DEPTH == 1;
  switch (sink) {
    case Sink::Atomic: interior_kernel<Sink::Atomic, SOFT, MAX_DEPTH, false, false><<<a.num_tiles, kBlock>>>(a); break;
    case Sink::WarpAggregated:
      interior_kernel<Sink::WarpAggregated, SOFT, MAX_DEPTH, false, false><<<a.num_tiles, kBlock>>>(a);
      break;
    case Sink::Records: interior_kernel<Sink::Records, SOFT, MAX_DEPTH, false, false><<<a.num_tiles, kBlock>>>(a); break;
    case Sink::Owned:
      if constexpr (kOneVertex) {
        if (a.block_rows > 0) {
          interior_kernel<Sink::Owned, SOFT, MAX_DEPTH, false, true><<<a.block_rows, kBlock>>>(a);
          break;
        }
        if (a.settings.spp > 1) {
          interior_kernel<Sink::Owned, SOFT, MAX_DEPTH, true, false><<<a.num_tiles, kBlock>>>(a);
          break;
        }
      }
      interior_kernel<Sink::Owned, SOFT, MAX_DEPTH, false, false><<<a.num_tiles, kBlock>>>(a);
      break;
  }
}

}  // namespace

void launch_interior(Sink sink, const InteriorArgs& a) {
  if (a.num_tiles == 0) return;
  TG_ASSERT(a.block_rows == 0 || (sink == Sink::Owned && a.scene.num_spheres <= kTileCapacity &&
                                   a.scene.num_dormant == 0 && owned_block_rows_apply(a.settings)),
            "block rows are for Owned, one hard vertex, no dormant lights, one sample and at most ", kTileCapacity,
            " spheres");
  // Separate code for soft visibility, one hard vertex, and paths or dormant lights (see PixelSample::trace_as).
  if (a.settings.soft) {
    launch_as<true, 1>(sink, a);
  } else if (path_depth(a.settings) == 1 && a.scene.num_dormant == 0) {
    TG_ASSERT(a.slots == kHeldSlots, "one-vertex samples have ", kHeldSlots, " contribution slots (got ", a.slots, ")");
    launch_as<false, 1>(sink, a);
  } else {
    launch_as<false, kMaxDepth>(sink, a);
  }
  TG_CUDA_CHECK_LAUNCH();
}

bool owned_block_rows_apply(const RenderSettings& st) { return !st.soft && path_depth(st) == 1 && st.spp == 1; }

std::uint32_t owned_resident_blocks() {
  int per_sm = 0, device = 0, sms = 0;
  TG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, interior_kernel<Sink::Owned, false, 1, false, true>, kBlock, 0));
  TG_CUDA_CHECK(cudaGetDevice(&device));
  TG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<std::uint32_t>(std::max(per_sm, 1) * sms);
}

}  // namespace tilegrad::pathtracer::cuda_backend
