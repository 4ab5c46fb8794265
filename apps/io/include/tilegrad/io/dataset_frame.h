// One posed image of a dataset, as the dataset loaders (transforms.json, COLMAP) return it.
#pragma once
#include <string>

#include "tilegrad/rasterizer/camera.h"

namespace tilegrad::io {

struct DatasetFrame {
  std::string name;  // as the dataset names it: file_path without a leading "./" (transforms), image name (COLMAP)
  std::string image_path;  // the image file (resolved, with extension, when it exists)
  raster::Camera camera;   // intrinsics in pixels + world-to-camera in OpenCV axes (see camera.h)
};

struct FrameOptions {
  // true: every frame's image must exist and its size must equal the camera's (checked from the file header,
  // the pixels are not decoded). false: cameras only; missing images are fine when the size is known anyway.
  bool require_images = true;
};

}  // namespace tilegrad::io
