// The original 3DGS binning (RasterSettings::binning = Binning::ThrustKeys), kept to measure the default two-pass
// CUB binning against (tilegrad profile raster --sort thrust): every instance gets the 8-byte key tile << 32 |
// depth bits (instance_key, the CPU reference's key) in the Gaussian-major instance list (visible Gaussian v writes
// its tiles in row-major order from its slot s.offsets[v]), with v as the value, and one thrust sort by key orders
// them all (thrust::stable_sort_by_key: for 8-byte integer keys the same radix sort that thrust::sort_by_key runs,
// with the order of equal keys guaranteed). Equal keys (same tile, same depth bits) keep the list's order,
// ascending v, which orders like the Gaussian index: the order of bin_instances, and of the CPU reference, bit for
// bit. Thrust's temporaries come from memory::allocate (thrust_policy.h): they count in the memory statistics and
// run out of memory with the stage's name.
#include <thrust/device_ptr.h>
#include <thrust/sort.h>

#include "cuda/bin.h"
#include "cuda/common.cuh"
#include "cuda/tile_ranges.cuh"
#include "tilegrad/core/cuda/thrust_policy.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using cuda::global_thread;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

__global__ void emit_keys_kernel(std::size_t count, const U32* offsets, const float* proj, TileGrid grid, U64* keys,
                                 U32* visible) {
  const std::size_t v = global_thread();
  if (v >= count) return;
  const float* record = proj + v * kProjWidth;
  const TileRect rect = record_tiles(record, grid);
  std::size_t out = offsets[v];
  for (int ty = rect.y0; ty < rect.y1; ++ty)
    for (int tx = rect.x0; tx < rect.x1; ++tx, ++out) {
      keys[out] = instance_key(static_cast<U32>(ty * grid.tiles_x + tx), record[kDepth]);
      visible[out] = static_cast<U32>(v);
    }
}

}  // namespace

void bin_instances_thrust(DeviceState& s) {
  if (!start_binning(s)) return;
  const std::size_t tiles = std::size_t(s.grid().count());
  Buffer<U64> keys(s.instances, Device::Cuda);
  Buffer<U32> values(s.instances, Device::Cuda);
  cuda::launch(emit_keys_kernel, s.visible, kBlock, 0, s.visible, s.offsets.data(), s.projected.data(), s.grid(),
               keys.data(), values.data());
  cuda::TrackedThrustAllocator allocator;
  const thrust::device_ptr<U64> k(keys.data());
  thrust::stable_sort_by_key(cuda::tracked_thrust_policy(allocator), k, k + s.instances,
                             thrust::device_ptr<U32>(values.data()));
  cuda::launch(tile_start_kernel<U64>, tiles + 1, kBlock, 0, keys.data(), s.instances, int(tiles),
               s.tile_start.data());
  s.sorted_visible = std::move(values);
}

}  // namespace tilegrad::raster::cuda_backend
