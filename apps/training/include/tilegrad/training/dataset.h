// Datasets as the trainer uses them: posed images decoded once into premultiplied RGBA8 on the training device,
// split into train and test views, with the SfM points (when the dataset has them) and the camera extent.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/core/buffer.h"
#include "tilegrad/io/datasets.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/rasterizer/camera.h"

namespace tilegrad::training {

struct DatasetOptions {
  std::string path;   // a NeRF-synthetic, transforms.json or COLMAP folder (see io/datasets.h)
  int downscale = 1;  // integer factor: images are box-filtered, intrinsics divided
  bool eval = false;  // without a split in the dataset: hold out every holdout_every-th image as test
  int holdout_every = 8;
  Device device = Device::Cpu;
  bool load_train_images = true;
  bool load_test_images = true;
};

struct TrainingView {
  std::string name;  // as the dataset names the frame
  std::string image_path;
  raster::Camera camera;       // at the loaded resolution
  Buffer<std::uint8_t> image;  // [H, W, 4] premultiplied RGBA on the device (empty when not loaded)
};

struct TrainingDataset {
  io::DatasetKind kind = io::DatasetKind::Transforms;
  std::string root;
  std::vector<TrainingView> train, test;
  io::PointCloud points;    // SfM points (COLMAP points3D, or points3d.ply beside transforms files); may be empty
  std::string points_file;  // where the points came from ("" when there are none)
  bool has_alpha = false;   // some image carries transparency (synthetic renders): white background by default
  // The 3DGS scene extent: the train cameras' centre and 1.1 x the largest distance of a camera from it.
  float center[3] = {0, 0, 0};
  float extent = 1.0f;
};

// Loads the cameras, checks every image (exists, decodes, size matches its camera) and decodes them. IoError
// naming the file and the problem for a bad dataset, an empty split, or a downscale that leaves no pixels;
// nothing is trained on a dataset that fails here.
TrainingDataset load_dataset(const DatasetOptions& options);

// Decodes one image file into premultiplied RGBA8 [H, W, 4] at 1/downscale resolution (box filter over
// downscale x downscale blocks, remainder rows and columns dropped). has_alpha is set when the file has an
// alpha channel. IoError naming the file when it cannot be read or has no pixels left.
std::vector<std::uint8_t> load_rgba_image(const std::string& path, int downscale, int& width, int& height,
                                          bool& has_alpha);

// The camera of an image loaded at 1/downscale resolution.
raster::Camera downscale_camera(const raster::Camera& camera, int downscale);

}  // namespace tilegrad::training
