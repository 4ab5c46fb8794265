// CUDA forward driver: project (project.cu) -> bin (bin.cu) -> blend (blend.cu), with stage timing.
#include <optional>

#include "cuda/bin.h"
#include "cuda/blend.h"
#include "cuda/common.cuh"
#include "cuda/contributors.cuh"
#include "cuda/drivers.h"
#include "cuda/project.h"

namespace tilegrad::raster::cuda_backend {

void forward(const GaussiansView& g, DeviceState& s, ForwardOutput& out, Workspace& ws, StageTimes* times) {
  StageClock clock(times != nullptr);
  {
    const memory::StageScope stage("rasterizer forward: projection");
    project(g, s, ws);
  }
  clock.mark();

  {
    const bool thrust_keys = s.settings.binning == Binning::ThrustKeys;
    const memory::StageScope stage(thrust_keys ? "rasterizer forward: binning (thrust sort of tile | depth keys)"
                                               : "rasterizer forward: binning (depth and tile sorts)");
    std::optional<memory::PeakScope> peak;  // measured when timed (profiling) only
    if (times) peak.emplace(Device::Cuda);
    number_instances(s, ws);
    if (thrust_keys) bin_instances_thrust(s);
    else bin_instances(s);
    order_tiles(s, ws);  // after the binning's scratch is freed
    if (times) times->sort_peak_bytes = peak->added_peak();
  }
  clock.mark();
  const memory::StageScope stage("rasterizer forward: blending (per-pixel outputs)");

  // The per-pixel outputs are allocated once the binning's scratch is gone: the forward's peak is the larger of
  // the two stages, not their sum.
  const std::size_t pixels = std::size_t(s.grid().width) * s.grid().height;
  out.image = Buffer<float>(pixels * 3, Device::Cuda);
  out.alpha = Buffer<float>(pixels, Device::Cuda);
  out.depth = Buffer<float>(s.settings.render_depth ? pixels : 0, Device::Cuda);
  s.final_transmittance = Buffer<float>(pixels, Device::Cuda);
  s.contributors = Buffer<std::uint16_t>(pixels, Device::Cuda);
  s.contributors_wide = Buffer<std::uint32_t>(dense_tile_bound(s.instances) * kTilePixels, Device::Cuda);
  blend(s, out.image.data(), out.alpha.data(), s.settings.render_depth ? out.depth.data() : nullptr);
  clock.mark();
  if (times) {
    times->project = clock.elapsed(0);
    times->sort = clock.elapsed(1);
    times->blend = clock.elapsed(2);
  }
}

}  // namespace tilegrad::raster::cuda_backend
