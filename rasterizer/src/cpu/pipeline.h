// The CPU reference of the whole rasterizer, templated on the scalar (float for the API, double for
// finite-difference tests): project -> bin -> blend, and the backward in reverse. The per-Gaussian and
// per-fragment math is element/'s, the same the CUDA kernels run.
#pragma once
#include <cstdint>
#include <vector>

#include "backend.h"
#include "tilegrad/ad/accumulation.h"
#include "tilegrad/rasterizer/element/record.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster::cpu_backend {

// Where the forward writes: image [H * W * 3], alpha [H * W], depth [H * W] or null (not rendered).
template <class T>
struct Images {
  T* image;
  T* alpha;
  T* depth;
};

// Where the backward writes, every value (zeros for Gaussians not rendered): the parameters' gradients (sh or
// colors, the other null), mean2d [N, 2], and mean2d_abs [N, 2] or null (not requested).
template <class T>
struct ParamGradients {
  T *means, *log_scales, *quats, *opacity_logits, *sh, *colors, *mean2d, *mean2d_abs;
};

template <class T>
struct State {
  ProjectionSettings projection{};
  RasterSettings settings{};
  std::vector<T> projected;               // [N, kProjWidth] (zeros for culled Gaussians)
  std::vector<std::uint8_t> clamped;      // [N] colour-clamp mask
  std::vector<std::uint32_t> offsets;     // [N + 1] instance slots per Gaussian
  std::vector<std::uint32_t> instance_gaussian;  // [I]
  std::vector<std::uint32_t> sorted_slots;       // [I]
  std::vector<std::uint32_t> tile_start;         // [tiles + 1]
  std::vector<std::uint32_t> contributors;       // [H * W]
  std::vector<T> final_transmittance;            // [H * W]
  std::size_t visible = 0;
  const TileGrid& grid() const { return projection.grid; }
};

template <class T>
void forward(const ParamArrays<T>& p, const ProjectionCamera& camera, const RasterSettings& settings, State<T>& s,
             const Images<T>& out);

template <class T>
void backward(const ParamArrays<T>& p, const State<T>& s, const LossGradients<T>& dl, Accumulation accumulation,
              const ParamGradients<T>& g);

}  // namespace tilegrad::raster::cpu_backend
