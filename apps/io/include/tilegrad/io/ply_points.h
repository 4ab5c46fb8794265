// Plain point clouds: positions with optional 8-bit RGB colours, read from and written to PLY (the form of
// SfM points used to initialise Gaussians and of the benchmark point clouds); COLMAP points use it too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/io/ply.h"

namespace tilegrad::io {

struct PointCloud {
  std::vector<float> positions;      // [N, 3]
  std::vector<std::uint8_t> colors;  // [N, 3] RGB, or empty when there are none
  std::size_t size() const { return positions.size() / 3; }
  bool has_colors() const { return !colors.empty(); }
};

// Reads element `vertex` with scalar x, y, z (float, double or any scalar type, stored as float) and, when
// present, uchar red, green, blue; other properties (normals, alpha, ...) are ignored. Missing coordinates,
// non-finite positions (naming the vertex), colours that are not uchar or are incomplete are IoErrors.
PointCloud read_points_ply(const std::string& path);
PointCloud points_from_ply(const PlyData& ply);

// Binary little-endian: float x, y, z, then uchar red, green, blue when the cloud has colours.
void write_points_ply(const std::string& path, const PointCloud& points);

}  // namespace tilegrad::io
