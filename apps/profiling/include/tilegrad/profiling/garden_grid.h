// The "garden grid G" benchmark workload (see the garden_points dataset's SOURCE.txt): a real point cloud
// cropped to [-2, 2]^3, tiled G x G with offsets (4i, 4j, 0), random scales, rotations, opacities and SH.
#pragma once
#include <cstdint>
#include <string>

#include "tilegrad/io/ply_points.h"
#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::profiling {

struct GardenGridOptions {
  int grid = 1;               // G, odd
  std::uint64_t seed = 0;
  int sh_degree = 3;
  bool precomputed_colors = false;  // RGB from the point colours instead of SH
};

// Host Gaussians of the workload (deterministic for a seed, independent of the thread count).
raster::Gaussians make_garden_grid(const io::PointCloud& points, const GardenGridOptions& options);

// Frame `frame` of a transforms.json without images (the dataset's cameras are 1920x1080).
raster::Camera load_benchmark_camera(const std::string& transforms_path, int frame);

}  // namespace tilegrad::profiling
