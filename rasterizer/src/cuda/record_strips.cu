// Strips of tile rows for the Owned backward (record_strips.h): the plan from the instance count before each row,
// the tile launch order grouped by strip, and each strip's dense instance slots.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "cuda/common.cuh"
#include "cuda/record_strips.h"
#include "cuda/workspace_slots.h"
#include "tilegrad/core/cuda/radix_bits.h"
#include "tilegrad/core/cuda/run_cub.h"

namespace tilegrad::raster::cuda_backend {
namespace {

using U32 = std::uint32_t;

// The strip of each position of the tile order (row_strip: the strip of every tile row).
__global__ void strip_keys_kernel(const U32* tile_order, int tiles, int tiles_x, const U32* row_strip, U32* keys) {
  const std::size_t i = cuda::global_thread();
  if (i < std::size_t(tiles)) keys[i] = row_strip[tile_order[i] / U32(tiles_x)];
}

// Slots of visible Gaussian v in tile rows [row_begin, row_end): its rectangle's width times the rows it shares
// with the strip; 0 for v = V (the scan's last element is then the strip's total).
struct StripSlots {
  const float* proj;
  TileGrid grid;
  int row_begin, row_end;
  U32 visible;
  __device__ U32 operator()(U32 v) const {
    if (v >= visible) return 0;
    const TileRect r = record_tiles(proj + std::size_t(v) * kProjWidth, grid);
    const int rows = min(r.y1, row_end) - max(r.y0, row_begin);
    return rows > 0 ? U32(rows * (r.x1 - r.x0)) : 0u;
  }
};

}  // namespace

std::size_t RecordStrips::most_instances() const {
  std::size_t most = 0;
  for (int k = 0; k < count(); ++k) most = std::max(most, instances_of(k));
  return most;
}

RecordStrips plan_record_strips(const DeviceState& s, std::size_t max_instances) {
  const int rows = s.grid().tiles_y, tiles_x = s.grid().tiles_x;
  // tile_start[r * tiles_x] for r = 0..rows - 1 (a strided read), then I.
  std::vector<U32> before(std::size_t(rows) + 1, U32(s.instances));
  if (rows > 0)
    TG_CUDA_CHECK(cudaMemcpy2D(before.data(), sizeof(U32), s.tile_start.data(), sizeof(U32) * tiles_x, sizeof(U32),
                               std::size_t(rows), cudaMemcpyDeviceToHost));
  RecordStrips b;
  b.rows.push_back(0);
  b.instances.push_back(0);
  for (int r = 1; r <= rows; ++r) {
    // Close the strip before row r - 1 when adding that row would take it over the limit.
    if (r - 1 > b.rows.back() && before[r] - b.instances.back() > max_instances) {
      b.rows.push_back(r - 1);
      b.instances.push_back(before[r - 1]);
    }
  }
  b.rows.push_back(rows);
  b.instances.push_back(s.instances);
  return b;
}

void strip_tile_order(const DeviceState& s, const RecordStrips& strips, U32* order, Workspace& ws) {
  const int tiles = s.grid().count(), rows = s.grid().tiles_y;
  if (tiles == 0) return;
  std::vector<U32> row_strip(static_cast<std::size_t>(rows));
  for (int k = 0; k < strips.count(); ++k)
    for (int r = strips.rows[k]; r < strips.rows[k + 1]; ++r) row_strip[std::size_t(r)] = U32(k);
  U32* d_row_strip = ws.slot<U32>(Slot::StripOfRow, row_strip.size());
  TG_CUDA_CHECK(cudaMemcpy(d_row_strip, row_strip.data(), row_strip.size() * sizeof(U32), cudaMemcpyHostToDevice));
  U32* keys = ws.slot<U32>(Slot::StripKeys, std::size_t(tiles));
  U32* sorted_keys = ws.slot<U32>(Slot::StripKeysSorted, std::size_t(tiles));
  cuda::launch(strip_keys_kernel, std::size_t(tiles), kBlock, 0, s.tile_order.data(), tiles, s.grid().tiles_x,
               d_row_strip, keys);
  // A stable sort by strip keeps the heaviest-first order inside each strip.
  const int end_bit = cuda::radix_bits(std::size_t(strips.count() - 1));
  cuda::run_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, sorted_keys, s.tile_order.data(), order, tiles, 0,
                                               end_bit);
      },
      ws, Slot::StripSortTemp);
}

void strip_offsets(const DeviceState& s, int row_begin, int row_end, U32* offsets, Workspace& ws) {
  const auto slots = thrust::make_transform_iterator(
      thrust::counting_iterator<U32>(0), StripSlots{s.projected.data(), s.grid(), row_begin, row_end, U32(s.visible)});
  const int items = static_cast<int>(s.visible + 1);
  cuda::run_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, slots, offsets, items);
      },
      ws, Slot::StripScan);
}

}  // namespace tilegrad::raster::cuda_backend
