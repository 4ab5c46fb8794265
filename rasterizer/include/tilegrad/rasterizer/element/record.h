// The records the pipeline's stages hand on, and the per-Gaussian work that writes the first of them:
//   the projection record (project -> bin, blend, blend backward): one per visible Gaussian;
//   the gradient record (blend backward -> reduce -> project backward): one per instance, then per Gaussian.
// Both backends lay them out the same way and run the same code on them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/rasterizer/gaussians.h"
#include "tilegrad/rasterizer/settings.h"

namespace tilegrad::raster {

// Projection record: mean2d, conic, opacity, colour, depth, and (kExtentX, kExtentY) the half-widths of its tile
// box (footprint_extents).
enum Proj : int { kU = 0, kV, kA, kB, kC, kOpacity, kRed, kGreen, kBlue, kDepth, kExtentX, kExtentY, kProjWidth };

// Gradient record of an instance or a Gaussian: dL/d of the projection record's compositing inputs.
enum Grad2d : int {
  kGradU = 0, kGradV = 1,                 // mean2d
  kGradConicA = 2, kGradConicB = 3, kGradConicC = 4,
  kGradOpacity = 5,
  kGradColor = 6,                         // 6, 7, 8
  kGrad2dCoreWidth = 9,                   // records without depth and |dL/dmean2d| stop here
  kGradDepth = 9,
  kGradAbsU = 10, kGradAbsV = 11,         // sum over pixels of |dL/dmean2d| (statistic, not a gradient)
  kGrad2dWidth = 12,
};

// A projected Gaussian as compositing sees it.
template <class T>
struct Splat {
  T u, v;        // mean2d
  T a, b, c;     // conic
  T opacity;
};

template <class T>
TG_HD Splat<T> splat_of(const T* record) {
  return {record[kU], record[kV], record[kA], record[kB], record[kC], record[kOpacity]};
}

// The tiles of a projection record: binning and the backward's slot lookup read them from the same values.
template <class T>
TG_HD TileRect record_tiles(const T* record, const TileGrid& g) {
  return footprint_tiles(float(record[kU]), float(record[kV]), float(record[kExtentX]), float(record[kExtentY]), g);
}

// A scene's parameter arrays as the stages read them (the layout of GaussiansView, over any scalar).
template <class T>
struct ParamArrays {
  std::size_t count = 0;
  int stored_degree = 0;
  const T* means = nullptr;           // [N, 3]
  const T* log_scales = nullptr;      // [N, 3]
  const T* quats = nullptr;           // [N, 4]
  const T* opacity_logits = nullptr;  // [N]
  const T* sh = nullptr;              // [N, (stored_degree + 1)^2, 3]; unused when colors is given
  const T* colors = nullptr;          // optional [N, 3]

  TG_HD Vec3<T> mean(std::size_t g) const { return {{means[3 * g], means[3 * g + 1], means[3 * g + 2]}}; }
  TG_HD Vec3<T> log_scale(std::size_t g) const {
    return {{log_scales[3 * g], log_scales[3 * g + 1], log_scales[3 * g + 2]}};
  }
  TG_HD Vec4<T> quat(std::size_t g) const {
    return {{quats[4 * g], quats[4 * g + 1], quats[4 * g + 2], quats[4 * g + 3]}};
  }
  TG_HD int sh_values() const { return sh_coefficients(stored_degree) * 3; }  // per Gaussian
};

// The projection stage's work for one Gaussian.
template <class T>
struct ProjectionRecord {
  T record[kProjWidth];
  std::uint8_t clamped;  // colour-clamp mask (sh_color)
  int tiles;             // tiles touched; 0: culled (then neither the record nor the mask is to be used)
};

// What the projection stage needs besides the parameters (trivially copyable: passed to kernels by value).
struct ProjectionSettings {
  ProjectionCamera camera;
  TileGrid grid;
  float blur, extent_sigmas, min_alpha;
  bool antialiased;
  int active_degree;
};

inline ProjectionSettings projection_settings(const ProjectionCamera& camera, const RasterSettings& s,
                                              int active_degree) {
  return {camera,          make_tile_grid(camera.width, camera.height), s.blur, s.thresholds.extent_sigmas,
          s.thresholds.min_alpha, s.antialiased, active_degree};
}

// Projects Gaussian g into its record, with its precomputed colour or else its SH colour. Culled (0 tiles): behind
// the near plane or beyond the far one, degenerate, a non-finite record (NaN or infinite parameters would poison
// every pixel they touch), or no tile.
template <class T>
TG_HD ProjectionRecord<T> project_record(const ParamArrays<T>& p, std::size_t g, const ProjectionSettings& ps) {
  ProjectionRecord<T> r{};
  const Vec3<T> mean = p.mean(g);
  const Projected<T> pr =
      project_gaussian(mean, p.log_scale(g), p.quat(g), p.opacity_logits[g], ps.camera, ps.blur, ps.antialiased);
  if (!pr.valid) return r;
  const Extents ext = footprint_extents(float(pr.cov2d[0]), float(pr.cov2d[1]), float(pr.cov2d[2]),
                                        float(pr.opacity), ps.extent_sigmas, ps.min_alpha);
  Vec3<T> color;
  if (p.colors) {
    color = {{p.colors[3 * g], p.colors[3 * g + 1], p.colors[3 * g + 2]}};
  } else {
    color = sh_color(ps.active_degree, p.sh + g * p.sh_values(), mean, ps.camera.position, r.clamped);
  }
  const T record[kProjWidth] = {pr.mean2d[0], pr.mean2d[1], pr.conic[0], pr.conic[1], pr.conic[2], pr.opacity,
                                color[0],     color[1],     color[2],    pr.depth,    T(ext.x),    T(ext.y)};
  bool finite = true;
  TG_UNROLL for (int c = 0; c < kProjWidth; ++c) finite = finite && is_finite(record[c]);
  if (!finite) return r;
  r.tiles = record_tiles(record, ps.grid).area();
  TG_UNROLL for (int c = 0; c < kProjWidth; ++c) r.record[c] = record[c];
  return r;
}

}  // namespace tilegrad::raster
