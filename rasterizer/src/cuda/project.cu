// CUDA projection stage. The per-Gaussian state is packed (device_state.h), so projection takes two passes:
//   1. one thread per Gaussian decides visibility and stores one bit of it (a ballot word per warp), adding its
//      tiles to the instance count; a scan of the words' bit counts numbers the visible Gaussians v in index
//      order. One device-to-host read per frame (the visible and instance counts) sizes the packed buffers;
//   2. one thread per visible Gaussian repeats its projection and writes the record and tile count at v.
// Repeating the visible projections is cheaper than keeping a record for every Gaussian: on large scenes most
// Gaussians are culled, and their records were most of the forward's memory.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/common.cuh"
#include "cuda/project.h"
#include "cuda/workspace_slots.h"
#include "tilegrad/core/cuda/run_cub.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
using U32 = std::uint32_t;

struct ProjectArgs {
  std::size_t n;  // threads: Gaussians (pass 1) or visible Gaussians (pass 2)
  ParamArrays<float> params;
  ProjectionSettings ps;
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

// Both passes run this one kernel, through one call of project_record: pass 2 repeats pass 1's arithmetic in the
// same compiled code, so it keeps every Gaussian pass 1 kept, with the same tile counts; the instance count read
// after pass 1 sizes the buffers that pass 2's slots index.
__global__ void project_kernel(ProjectArgs a) {
  const std::size_t i = global_thread();
  const bool valid = i < a.n, store = a.ids != nullptr;
  ProjectionRecord<float> p{};
  if (valid) p = project_record(a.params, store ? a.ids[i] : i, a.ps);
  if (store) {
    if (!valid) return;
    float* out = a.proj + i * kProjWidth;
#pragma unroll
    for (int c = 0; c < kProjWidth; ++c) out[c] = p.record[c];
    a.clamped[i] = p.clamped;
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

// Exclusive sum of count values from `in` into `out` (may be `in`), scratch in Slot::ScanTemp.
template <class In>
void exclusive_sum(In in, U32* out, std::size_t count, Workspace& ws) {
  cuda::run_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, static_cast<int>(count));
      },
      ws, Slot::ScanTemp);
}

}  // namespace

void project(const GaussiansView& g, DeviceState& s, Workspace& ws) {
  const std::size_t n = g.count, words = (n + 31) / 32;
  ProjectArgs pa{n,
                 param_arrays(g),
                 s.projection,
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
  auto* counts = ws.slot<U32>(Slot::Counts, 3);  // {visible, instances, most tiles of one Gaussian}
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
}

void number_instances(DeviceState& s, Workspace& ws) {
  // The extra last element gives I, which pass 1 counted already.
  TG_CUDA_CHECK(cudaMemsetAsync(s.offsets.data() + s.visible, 0, sizeof(U32)));
  if (s.visible > 0) exclusive_sum(s.offsets.data(), s.offsets.data(), s.visible + 1, ws);
}

}  // namespace tilegrad::raster::cuda_backend
