// The 3DGS rasterizer API: forward (project -> bin -> blend) returning images and a context, and backward
// returning gradients for every parameter, on the CPU reference backend or CUDA.
#pragma once
#include <array>
#include <cstdint>
#include <memory>

#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"
#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/gaussians.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster {

struct Context;  // saved state of one forward call (internal)

struct ForwardOutput {
  Buffer<float> image;  // [H, W, 3], background composited
  Buffer<float> alpha;  // [H, W], 1 - final transmittance
  Buffer<float> depth;  // [H, W], sum_i w_i z_i (divide by alpha for the depth of the covered part); empty
                        // unless RasterSettings::render_depth
  std::shared_ptr<const Context> context;
  std::size_t instances() const;       // (Gaussian, tile) pairs rendered
  std::size_t visible_gaussians() const;
};

// Gradients, same shapes as the parameters. `colors` is filled when the forward used precomputed colours
// (then `sh` is zero), otherwise `sh` is.
struct Gradients {
  Buffer<float> means, log_scales, quats, opacity_logits, sh, colors;
  Buffer<float> mean2d;      // [N, 2] gradient w.r.t. the projected mean (pixels); densification uses it
  Buffer<float> mean2d_abs;  // [N, 2] sum over pixels of |per-pixel dL/dmean2d|; empty unless requested
                             // (BackwardSettings::absolute_mean2d)
};

// Milliseconds per stage of the last call (CUDA events on the GPU; zero where not measured).
struct StageTimes {
  double project = 0, sort = 0, blend = 0;                            // forward
  double blend_backward = 0, reduce = 0, project_backward = 0;       // backward
  // Bytes the forward's binning stage (instance numbering, sort, tile order) held at its peak beyond what was
  // held before it (CUDA; its scratch and sort temporaries, thrust's included).
  std::size_t sort_peak_bytes = 0;
};

class Rasterizer {
 public:
  explicit Rasterizer(Device device = Device::Cpu);
  ~Rasterizer();
  Rasterizer(Rasterizer&&) noexcept;
  Rasterizer& operator=(Rasterizer&&) noexcept;

  Device device() const;

  // Renders `gaussians` (on this rasterizer's device) from `camera`.
  ForwardOutput forward(const GaussiansView& gaussians, const Camera& camera, const RasterSettings& settings = {});

  // Gradients of a loss given dL/dimage [H, W, 3] and optionally dL/dalpha [H, W] and dL/ddepth [H, W]
  // (empty views: zero; dL/ddepth needs a forward with RasterSettings::render_depth). `gaussians` must be the
  // same parameters (same buffers, unchanged version) the forward rendered; dL/d* must be finite.
  Gradients backward(const ForwardOutput& forward, const GaussiansView& gaussians, View<const float> d_image,
                     View<const float> d_alpha = {}, View<const float> d_depth = {},
                     const BackwardSettings& settings = {});

  // Stage timings of the last forward/backward when timing is on (adds synchronisation; for profiling).
  void set_timing(bool on);
  const StageTimes& last_times() const;

  // Scratch memory held between calls.
  std::size_t workspace_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tilegrad::raster
