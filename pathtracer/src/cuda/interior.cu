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
#include <cstdint>

#include "../layout.h"
#include "kernels.h"
#include "tilegrad/ad/cuda/accumulate_device.cuh"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/pixel_sample.h"
#include "warp_sum.cuh"

namespace tilegrad::pathtracer::cuda_impl {
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
template <Sink SINK, bool SOFT, int MAX_DEPTH, bool HOLD>
__global__ void __launch_bounds__(kBlock, !SOFT && MAX_DEPTH == 1 ? (HOLD ? 2 : 3) : 1) interior_kernel(InteriorArgs a) {
  static_assert(!HOLD || (SINK == Sink::Owned && !SOFT && MAX_DEPTH == 1), "rows are held for one-vertex Owned only");
  __shared__ float part[SINK == Sink::Owned ? kWarps : 1][SINK == Sink::Owned ? kTileCapacity : 1][kSphereParams];
  __shared__ std::uint32_t table[SINK == Sink::Owned ? kTileCapacity : 1];
  const SceneView<float>& sc = a.scene;
  const RenderSettings& st = a.settings;
  const int tile = a.first_tile + static_cast<int>(blockIdx.x);
  const int px = (tile % a.tiles_x) * kTileSize + static_cast<int>(threadIdx.x % kTileSize);
  const int py = (tile / a.tiles_x) * kTileSize + static_cast<int>(threadIdx.x / kTileSize);
  const int warp = static_cast<int>(threadIdx.x / 32);

  int listed = 0;
  std::uint32_t table_begin = 0;
  if constexpr (SINK == Sink::Owned) {
    table_begin = a.tile_offsets[tile];
    listed = static_cast<int>(a.tile_offsets[tile + 1] - table_begin);
    for (int i = threadIdx.x; i < listed; i += kBlock) table[i] = a.tile_ids[table_begin + i];
    for (int i = threadIdx.x; i < kWarps * listed * kSphereParams; i += kBlock) {  // the listed spheres' rows
      const int w = i / (listed * kSphereParams), e = i % (listed * kSphereParams);
      part[w][e / kSphereParams][e % kSphereParams] = 0.0f;
    }
    __syncthreads();
  }

  Vec3<float> g = Vec3<float>::zero();
  if (px < sc.camera.width && py < sc.camera.height) {
    const float* a_px = a.d_image + (static_cast<std::size_t>(py) * sc.camera.width + px) * 3;
    g = Vec3<float>{{a_px[0], a_px[1], a_px[2]}};
  }
  const bool active = g[0] != 0.0f || g[1] != 0.0f || g[2] != 0.0f;
  const float weight = 1.0f / static_cast<float>(st.spp);

  // Owned: the warp's sum of the rows of equal key into this warp's partial of that sphere (all lanes call).
  auto owned_add = [&](std::uint32_t id, float (&row)[kSphereParams]) {
    const int j = id != kNoKey ? find(table, listed, id) : -1;
    if (id != kNoKey && j < 0) *a.missing = 1u;
    warp_sum_by_key(id, row, [&](int c, float v) {
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
      ps.template trace_as<SOFT, MAX_DEPTH>(sc, st, px, py, s);
      count = ps.count;
    }
#pragma unroll
    for (int k = 0; k < (MAX_DEPTH == 1 && !SOFT ? kHeldSlots : a.slots); ++k) {  // uniform over the warp: the collective sinks need every lane
      float row[kSphereParams];
      const bool valid = k < count;
      std::uint32_t id = kNoKey;
      if (valid) {
        ps.template gradient_row_as<SOFT, MAX_DEPTH>(sc, st, k, g, weight, row);
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
                              static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
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

  if constexpr (SINK == Sink::Owned) {
    if constexpr (HOLD) {
#pragma unroll
      for (int k = 0; k < kHeldSlots; ++k) owned_add(held_id[k], held[k]);
    }
    __syncthreads();
    for (int e = threadIdx.x; e < listed * kSphereParams; e += kBlock) {
      const int j = e / kSphereParams, c = e % kSphereParams;
      float sum = part[0][j][c];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) sum += part[w][j][c];
      a.owned[static_cast<std::size_t>(a.pair_slot[table_begin + j]) * kSphereParams + c] = sum;
    }
  }
}

template <bool SOFT, int MAX_DEPTH>
void launch_as(Sink sink, const InteriorArgs& a) {
  switch (sink) {
    case Sink::Atomic: interior_kernel<Sink::Atomic, SOFT, MAX_DEPTH, false><<<a.num_tiles, kBlock>>>(a); break;
    case Sink::WarpAggregated:
      interior_kernel<Sink::WarpAggregated, SOFT, MAX_DEPTH, false><<<a.num_tiles, kBlock>>>(a);
      break;
    case Sink::Records: interior_kernel<Sink::Records, SOFT, MAX_DEPTH, false><<<a.num_tiles, kBlock>>>(a); break;
    case Sink::Owned:
      if constexpr (!SOFT && MAX_DEPTH == 1) {
        if (a.settings.spp > 1) {
          interior_kernel<Sink::Owned, SOFT, MAX_DEPTH, true><<<a.num_tiles, kBlock>>>(a);
          break;
        }
      }
      interior_kernel<Sink::Owned, SOFT, MAX_DEPTH, false><<<a.num_tiles, kBlock>>>(a);
      break;
  }
}

}  // namespace

void launch_interior(Sink sink, const InteriorArgs& a) {
  if (a.num_tiles == 0) return;
  // Separate code for soft visibility, one hard vertex, and paths (see PixelSample::trace_as).
  if (a.settings.soft) {
    launch_as<true, 1>(sink, a);
  } else if (path_depth(a.settings) == 1) {
    TG_ASSERT(a.slots == kHeldSlots, "one-vertex samples have ", kHeldSlots, " contribution slots (got ", a.slots, ")");
    launch_as<false, 1>(sink, a);
  } else {
    launch_as<false, kMaxDepth>(sink, a);
  }
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::pathtracer::cuda_impl
