// Initial Gaussians: one per point (SfM points, or random points in a box), isotropic with the scale of the
// neighbourhood, opacity 0.1, colour in the SH DC band (the 3DGS initialisation).
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/io/ply_points.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::training {

struct InitOptions {
  int sh_degree = 3;  // bands stored (trained up to this degree)
  float opacity = 0.1f;
  std::size_t random_points = 100000;
  std::uint64_t seed = 0;
};

// For every point, the root mean square distance to its 3 nearest other points (the scale 3DGS starts from),
// with squared distances clamped below at 1e-7 so coincident points get a tiny positive scale. Exact search on
// a uniform grid. positions: [N, 3].
std::vector<float> nearest_neighbour_scales(const std::vector<float>& positions, int neighbours = 3);

// Gaussians on the host from points (colours: the point colours, grey where there are none).
raster::Gaussians gaussians_from_points(const io::PointCloud& points, const InitOptions& options);

// `count` points uniform in the axis-aligned box [center - half_size, center + half_size], coloured grey (bytes
// 127 or 128): the reference also starts random points at a colour of about 0.5.
io::PointCloud random_points(std::size_t count, const float center[3], float half_size, std::uint64_t seed);

}  // namespace tilegrad::training
