// Datasets as the trainer uses them: posed images decoded once into premultiplied RGBA8 on the training device,
// undistorted into pinhole cameras and brought to the training resolution (undistort.h), split into train and
// test views, with the SfM points (when the dataset has them) and the camera extent.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/core/buffer.h"
#include "tilegrad/io/datasets.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/training/undistort.h"

namespace tilegrad::training {

struct DatasetOptions {
  std::string path;   // a NeRF-synthetic, transforms.json or COLMAP folder (see io/datasets.h)
  int downscale = 1;  // integer factor: images are box-filtered, intrinsics divided
  int width = 0;      // > 0: training width in pixels, the height keeps the aspect ratio (instead of downscale)
  // With downscale 1 and no width, images wider than this are scaled to it (the original 3DGS's 1.6K rule;
  // a note says so); 0: never.
  int max_width = 1600;
  UndistortMode undistort = UndistortMode::Crop;  // for images with lens distortion
  Interpolation interpolation = Interpolation::Bicubic;  // of resampled images (undistortion, non-integer sizes)
  std::string images;  // another image folder (images_2, images_4, ...); "" : the dataset's own
  std::string masks;   // a mask folder (<name>.png; 0 = ignore the pixel); "" : only the dataset's mask_path keys
  bool skip_missing_images = false;  // frames without an image file are left out (with a note), not an error
  // The cameras' near plane in world units: Gaussians closer to a camera are not rendered in its view.
  float near_plane = 0.01f;
  // Test views of datasets without a split of their own: every test_every-th image (indices 0, N, 2N, ...).
  // -1: 8 for COLMAP scenes, else holdout_every with eval and none without; 0: none.
  int test_every = -1;
  bool eval = false;  // without a split in the dataset: hold out every holdout_every-th image as test
  int holdout_every = 8;
  Device device = Device::Cpu;
  bool load_train_images = true;
  bool load_test_images = true;
};

// The test hold-out a dataset of this kind gets under `options`: every N-th image, 0 for none.
int test_every_for(const DatasetOptions& options, io::DatasetKind kind);

// A view without its pixels (copyable).
struct ViewInfo {
  std::string name;  // as the dataset names the frame
  std::string image_path;
  std::string mask_path;         // the frame's mask image ("" : none)
  raster::Camera camera;         // pinhole, at the loaded resolution
  ImagePlan plan;                // how the image file becomes this view's image (its source camera and lens)
  std::size_t valid_pixels = 0;  // when loaded: the number of pixels that count
};

struct TrainingView : ViewInfo {
  Buffer<std::uint8_t> image;  // [H, W, 4] premultiplied RGBA on the device (empty when not loaded)
  // [H, W] 1 where a pixel counts for the loss and the metrics (undistortion borders and masks are 0); empty
  // when every pixel counts.
  Buffer<std::uint8_t> valid;
};

// A dataset without its views (copyable).
struct DatasetInfo {
  io::DatasetKind kind = io::DatasetKind::Transforms;
  std::string root;
  io::PointCloud points;    // SfM points (COLMAP points3D, or points3d.ply beside transforms files); may be empty
  std::string points_file;  // where the points came from ("" when there are none)
  bool has_alpha = false;   // some image carries transparency (synthetic renders): white background by default
  std::vector<std::string> skipped;  // frames left out for a missing image (skip_missing_images)
  std::vector<std::string> notes;    // what loading changed that a user should know (undistortion, resolution)
  // The 3DGS scene extent: the train cameras' centre and 1.1 x the largest distance of a camera from it.
  float center[3] = {0, 0, 0};
  float extent = 1.0f;
};

struct TrainingDataset : DatasetInfo {
  std::vector<TrainingView> train, test;
};

// A copy with the loaded images and masks on `device`.
TrainingDataset copy_dataset(const TrainingDataset& d, Device device);

// Loads the cameras, checks every image (exists, decodes, size matches its camera) and decodes them. IoError
// naming the file and the problem for a bad dataset, an empty split, or a downscale that leaves no pixels;
// nothing is trained on a dataset that fails here.
TrainingDataset load_dataset(const DatasetOptions& options);

// One view's training image (and valid-pixel mask) from its files, per view.plan, on `device`: what
// load_dataset stores in the view. has_alpha is set when the file has an alpha channel.
ResampledImage load_view_image(const TrainingView& view, Device device, bool& has_alpha);

// Decodes one image file into premultiplied RGBA8 [H, W, 4] at 1/downscale resolution (box filter over
// downscale x downscale blocks, remainder rows and columns dropped). has_alpha is set when the file has an
// alpha channel. IoError naming the file when it cannot be read or has no pixels left.
std::vector<std::uint8_t> load_rgba_image(const std::string& path, int downscale, int& width, int& height,
                                          bool& has_alpha);

// The camera of an image loaded at 1/downscale resolution.
raster::Camera downscale_camera(const raster::Camera& camera, int downscale);

}  // namespace tilegrad::training
