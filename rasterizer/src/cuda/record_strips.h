// Internal: the Owned backward in strips of tile rows, so that its per-instance records need not exist all at
// once (BackwardSettings::max_record_bytes).
//
// A visible Gaussian's instance slots are its tile rectangle in row-major order (forward.cu, bin.cu), so the
// slots it has in rows [r0, r1) are one contiguous run: a strip of tile rows gives every Gaussian one segment.
// Numbered densely within the strip (strip_offsets), the strip's records fill a buffer sized for the largest
// strip, and the AD layer's segmented sum adds each strip's per-Gaussian sums into grad2d, strip after strip.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device_state.h"
#include "tilegrad/core/workspace.h"

namespace tilegrad::raster::cuda_backend {

struct RecordStrips {
  std::vector<int> rows;               // [K + 1] tile-row boundaries: strip k is rows [rows[k], rows[k + 1])
  std::vector<std::size_t> instances;  // [K + 1] tile-sorted instances before each strip; the last is I
  int count() const { return int(rows.size()) - 1; }
  std::size_t instances_of(int k) const { return instances[k + 1] - instances[k]; }
  std::size_t most_instances() const;
};

// Whole tile rows, at most max_instances instances per strip where the rows allow it (a row holding more is a
// strip of its own). Reads the instance count before every row back from the device (one small read).
RecordStrips plan_record_strips(const DeviceState& s, std::size_t max_instances);

// s.tile_order (heaviest tile first) grouped by strip, keeping that order within each strip: strip k's tiles are
// order[rows[k] * tiles_x .. rows[k + 1] * tiles_x). Scratch in the Slot::StripOfRow .. StripSortTemp slots.
void strip_tile_order(const DeviceState& s, const RecordStrips& strips, std::uint32_t* order, Workspace& ws);

// Instance slots within strip rows [row_begin, row_end): offsets[v] = slots of the visible Gaussians before v in
// those rows, offsets[V] = the strip's instances. Scan scratch in Slot::StripScan.
void strip_offsets(const DeviceState& s, int row_begin, int row_end, std::uint32_t* offsets, Workspace& ws);

}  // namespace tilegrad::raster::cuda_backend
