// Synthetic captures through a real lens with known parameters, to exercise undistortion end to end. Each view
// is rendered by the rasterizer as a pinhole image at `supersample` times the resolution and wide enough for the
// lens's field of view, then warped into the distorted image: each of the supersample^2 samples of a pixel is
// undistorted by the lens's Newton inverse, read from the render with bilinear filtering, and the samples are
// averaged. A pinhole lens gives antialiased reference renders of the same views the same way.
#pragma once
#include <cstddef>
#include <string>

#include "tilegrad/rasterizer/gaussians.h"
#include "tilegrad/rasterizer/lens.h"
#include "tilegrad/training/default_scene.h"

namespace tilegrad::training {

enum class CaptureFormat {
  Colmap,         // images/frame_NNNN.png, sparse/0/{cameras,images,points3D}.txt with one camera of the model
  Transforms,     // images/frame_NNNN.png, transforms.json with instant-ngp's keys (fl_x, k1..k4, p1, p2,
                  // is_fisheye), points3d.ply
  NerfSynthetic,  // train/ and test/ images, transforms_train.json + transforms_test.json (lens keys on top)
};
const char* to_string(CaptureFormat format);
CaptureFormat capture_format_from_string(const std::string& name);  // "colmap", "transforms", "nerf-synthetic"

struct CaptureOptions {
  SceneViewOptions views;  // size, view counts (frames: train views, then test views), distance, seed, device
  float focal = 0;         // pixels, fx = fy (0: from views.fov_x); the principal point is the image centre
  raster::Lens lens;
  int supersample = 4;
  CaptureFormat format = CaptureFormat::Colmap;
  // SfM-like points: every k-th Gaussian mean of the scene with its colour, about this many (0: none).
  std::size_t points = 2000;
};

// Writes the capture into `folder` (opaque RGB images of the scene on black). InvalidArgument for options the
// format cannot express (the transforms keys hold OPENCV, FULL_OPENCV with k3 only, and the fisheye models).
void write_lens_capture(const std::string& folder, const raster::Gaussians& scene, const CaptureOptions& options);

}  // namespace tilegrad::training
