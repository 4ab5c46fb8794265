// CUDA backward driver: blend backward (blend_backward.cu) -> reduce (the AD layer's segmented sum, Owned, or its
// sort + reduce, SortReduce) -> project backward (project_backward.cu), with stage timing.
// Memory: the per-instance records of Owned and SortReduce are freed once reduced to grad2d, before the
// parameter gradients are allocated, so the peak holds the larger of the two, not both. Owned under a record
// limit (BackwardSettings::max_record_bytes) runs blend backward and reduction per strip of tile rows
// (record_strips.h), so only the largest strip's records exist. Tiles denser than BackwardSettings::depth_chunk
// instances are blended backward by several blocks, one per chunk of their depth list (depth_chunks.h).
#include "cuda/blend_backward.h"
#include "cuda/common.cuh"
#include "cuda/depth_chunks.h"
#include "cuda/drivers.h"
#include "cuda/nonfinite_check.h"
#include "cuda/project_backward.h"
#include "cuda/record_strips.h"
#include "cuda/workspace_slots.h"

namespace tilegrad::raster::cuda_backend {

Gradients backward(const GaussiansView& g, const DeviceState& s, const LossGradients<float>& dl,
                   const BackwardSettings& settings, Accumulator& acc, Workspace& ws, StageTimes* times,
                   NonfiniteCheck* check) {
  const Accumulation accumulation = settings.accumulation;
  // Records carry depth and |dL/dmean2d| only when something needs them.
  const int width = (dl.depth || settings.absolute_mean2d) ? kGrad2dWidth : kGrad2dCoreWidth;
  const std::size_t visible = s.visible;
  const TileGrid& grid = s.grid();
  StageClock clock(times != nullptr);
  const memory::StageScope stage("rasterizer backward: blend backward and reduction (per-instance records)");

  const bool records = accumulation == Accumulation::Owned || accumulation == Accumulation::SortReduce;
  // Per-Gaussian records of the visible Gaussians: the atomic targets, or the reductions' output. Sized exactly for
  // this call (a workspace slot would keep a quarter more for growth, and hold it between calls).
  Buffer<float> grad2d_buffer(visible * width, Device::Cuda);
  float* grad2d = grad2d_buffer.data();
  const std::size_t pixels = std::size_t(grid.width) * grid.height;
  const std::size_t record_bytes = s.instances * std::size_t(width) * sizeof(float);
  const bool striped = accumulation == Accumulation::Owned && settings.max_record_bytes > 0 &&
                       record_bytes > settings.max_record_bytes && pixels > 0;
  const RecordStrips strips =
      striped ? plan_record_strips(s, std::max<std::size_t>(1, settings.max_record_bytes / (width * sizeof(float))))
              : RecordStrips{{0, grid.tiles_y}, {0, s.instances}};
  // Owned in one strip, or SortReduce (never striped): one segmented sum covers every grad2d row (each visible
  // Gaussian has at least one instance), and with AccumulateOptions::overwrite it stores the rows (the same bits
  // as adding into zeros): no zeroing first, no read of grad2d. The atomic modes and strips add into grad2d.
  const bool assign = records && strips.count() == 1 && s.instances > 0;
  if (visible > 0 && !assign) TG_CUDA_CHECK(cudaMemsetAsync(grad2d, 0, visible * width * sizeof(float)));
  {
    Buffer<float> partial_buffer(records ? strips.most_instances() * width : 0, Device::Cuda);  // freed after
    const std::uint32_t* order = s.tile_order.data();
    std::uint32_t* strip_offsets_buffer = nullptr;
    if (strips.count() > 1) {
      std::uint32_t* grouped = ws.slot<std::uint32_t>(Slot::StripOrder, std::size_t(grid.count()));
      strip_tile_order(s, strips, grouped, ws);
      order = grouped;
      strip_offsets_buffer = ws.slot<std::uint32_t>(Slot::StripOffsets, visible + 1);
    }
    BlendBackwardArgs ba{grid,
                         s.settings.thresholds,
                         {s.settings.background[0], s.settings.background[1], s.settings.background[2]},
                         s.projected.data(),
                         s.tile_start.data(),
                         order,
                         s.sorted_visible.data(),
                         s.offsets.data(),
                         contributor_reader(s),
                         s.final_transmittance.data(),
                         dl.image,
                         dl.alpha,
                         dl.depth,
                         grad2d,
                         partial_buffer.data(),
                         0,
                         {}};
    for (int k = 0; k < strips.count(); ++k) {
      const int row_begin = strips.rows[k], row_end = strips.rows[k + 1];
      const std::size_t strip_instances = strips.instances_of(k);
      ba.tile_order = order + std::size_t(row_begin) * grid.tiles_x;
      ba.row_begin = row_begin;
      if (strip_offsets_buffer && strip_instances > 0) {
        strip_offsets(s, row_begin, row_end, strip_offsets_buffer, ws);
        ba.offsets = strip_offsets_buffer;
      }
      const int strip_tiles = (row_end - row_begin) * grid.tiles_x;
      if (strip_instances > 0) {
        // The records of instances behind every pixel's last contributor stay zero: one linear memset is cheaper
        // than finding their slots in the kernel and storing zeros there (measured on the garden grids, where 40%,
        // 38% and 64% of the instances are unreached at G = 1, 5, 15: docs/PERFORMANCE.md).
        if (records) TG_CUDA_CHECK(cudaMemsetAsync(ba.partial, 0, strip_instances * width * sizeof(float)));
        ba.chunks = plan_depth_chunks(s.tile_start.data(), ba.tile_order, strip_tiles, strip_instances,
                                      depth_chunk_for(settings, strip_instances, cuda::sm_count()), ws);
        launch_blend_backward(accumulation, width, ba, strip_tiles, strip_instances);
      }
      if (check && k == 0) check->launch();  // its host calls after the first blend launch: they delay no work
      clock.mark();

      if (records && strip_instances > 0) {
        const View<const float> values(ba.partial, strip_instances * width, Device::Cuda);
        const View<float> out(grad2d, visible * width, Device::Cuda);
        if (accumulation == Accumulation::Owned) {
          // Each visible Gaussian's slots (in the strip) are contiguous: its offsets are the segments, and no
          // segment is longer than the most tiles any Gaussian touches. The sums add to grad2d strip by strip,
          // or are stored into it when there is one strip (assign).
          const View<const std::uint32_t> segments(ba.offsets, visible + 1, Device::Cuda);
          AccumulateOptions options;
          options.check = false;
          options.max_segment_rows = s.max_tiles;
          options.overwrite = assign;
          acc.segmented_sum(values, width, segments, out, options);
        } else {
          Contributions in;
          in.values = values;
          in.width = width;
          in.ids = View<const std::uint32_t>(s.sorted_visible.data(), s.instances, Device::Cuda);
          AccumulateOptions options;
          options.check = false;
          options.overwrite = assign;
          acc.accumulate(Accumulation::SortReduce, in, out, options);
        }
      }
      clock.mark();
    }
  }

  const memory::StageScope projection_stage("rasterizer backward: projection backward (parameter gradients)");
  Gradients grads = allocate_gradients(g, settings, Device::Cuda);
  project_backward(g, s, grad2d, width, grads);
  clock.mark();
  if (times) {  // marks: blend and reduce of each strip, then the projection backward
    times->blend_backward = times->reduce = 0;
    for (int k = 0; k < strips.count(); ++k) {
      times->blend_backward += clock.elapsed(std::size_t(2 * k));
      times->reduce += clock.elapsed(std::size_t(2 * k + 1));
    }
    times->project_backward = clock.elapsed(std::size_t(2 * strips.count()));
  }
  return grads;
}

}  // namespace tilegrad::raster::cuda_backend
