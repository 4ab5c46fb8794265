// One posed image of a dataset, as the dataset loaders (transforms.json, COLMAP) return it.
#pragma once
#include <string>

#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/lens.h"

namespace tilegrad::io {

struct DatasetFrame {
  std::string name;  // as the dataset names it: file_path without a leading "./" (transforms), image name (COLMAP)
  std::string image_path;  // the image file (resolved, with extension, when it exists)
  raster::Camera camera;   // intrinsics in pixels + world-to-camera in OpenCV axes (see camera.h)
  raster::Lens lens;       // the lens distortion of the image (Pinhole: none); camera holds fx, fy, cx, cy
  std::string mask_path;   // optional mask image of the frame (pixels < 128 in its first channel are ignored); ""
};

// What a loader does with frames whose image file does not exist (when images are required).
enum class MissingImages {
  Error,  // an IoError listing every missing image
  Skip,   // the frames are left out; the loaders report their names
};

struct FrameOptions {
  // true: every frame's image must exist and its size must equal the camera's (checked from the file header,
  // the pixels are not decoded). false: cameras only; missing images are fine when the size is known anyway.
  bool require_images = true;
  MissingImages missing_images = MissingImages::Error;
  // Another image folder, for downscaled copies (images_2, images_4, ...): COLMAP images are read from
  // <scene>/<image_folder>/<name>, transforms images from <json folder>/<image_folder>/<file name of file_path>
  // (nerfstudio's convention). "" keeps the dataset's own paths.
  std::string image_folder;
  // With image_folder, an image whose size differs from its camera's by one factor per axis (each side within
  // one pixel of the camera's side divided by the factor) scales the camera's intrinsics to the image.
  bool scale_cameras_to_images = true;
  // Masks in a folder: <root>/<mask_folder>/<name>.png, else with the image's extension replaced by .png
  // (COLMAP's convention; <root> is the scene or json folder). "" uses the files' own mask_path keys only.
  std::string mask_folder;
};

}  // namespace tilegrad::io
