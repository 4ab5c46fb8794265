// The CPU reference of the whole rasterizer, templated on the scalar (float for the API, double for
// finite-difference tests): project -> bin -> blend, and the backward in reverse.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster::cpu {

// Packed per-Gaussian projection record; (kExtentX, kExtentY) are the half-widths of its tile box
// (footprint_extents).
enum Proj : int { kU = 0, kV, kA, kB, kC, kOpacity, kRed, kGreen, kBlue, kDepth, kExtentX, kExtentY, kProjWidth };

// The tiles of a projection record: binning and the backward's slot lookup read them from the same values.
template <class T>
TG_HD inline TileRect record_tiles(const T* r, const TileGrid& g) {
  return footprint_tiles(float(r[kU]), float(r[kV]), float(r[kExtentX]), float(r[kExtentY]), g);
}

template <class T>
struct Params {
  std::size_t count = 0;
  int stored_degree = 0;
  const T* means = nullptr;
  const T* log_scales = nullptr;
  const T* quats = nullptr;
  const T* opacity_logits = nullptr;
  const T* sh = nullptr;      // [N, (stored_degree + 1)^2, 3]
  const T* colors = nullptr;  // optional [N, 3]
};

template <class T>
struct State {
  ProjectionCamera camera{};
  TileGrid grid{};
  RasterSettings settings{};
  int active_degree = 0;
  std::vector<T> projected;               // [N, kProjWidth]
  std::vector<std::uint8_t> clamped;      // [N] colour-clamp mask
  std::vector<std::uint32_t> offsets;     // [N + 1] instance slots per Gaussian
  std::vector<std::uint32_t> instance_gaussian;  // [I]
  std::vector<std::uint32_t> sorted_slots;       // [I]
  std::vector<std::uint32_t> tile_start;         // [tiles + 1]
  std::vector<std::uint32_t> contributors;       // [H * W]
  std::vector<T> final_transmittance;            // [H * W]
  std::vector<T> image, alpha, depth;            // [H*W*3], [H*W], [H*W]
  std::size_t visible = 0;
};

template <class T>
struct Grads {
  std::vector<T> means, log_scales, quats, opacity_logits, sh, colors, mean2d, mean2d_abs;
};

template <class T>
void forward(const Params<T>& p, const ProjectionCamera& camera, const RasterSettings& settings, State<T>& s);

// dl_dalpha and dl_ddepth may be null.
template <class T>
void backward(const Params<T>& p, const State<T>& s, const T* dl_dimage, const T* dl_dalpha, const T* dl_ddepth,
              Accumulation accumulation, Grads<T>& g);

}  // namespace tilegrad::raster::cpu
