// From an image file's camera (any lens) to the pinhole training image: the undistorted camera (COLMAP's
// undistorter semantics, lens.h), the training resolution (integer downscale, target width, or the default cap),
// and the resampling itself on the CPU (threads) or the GPU (one kernel), both through element/resample.h.
#pragma once
#include <cstdint>
#include <string>

#include "tilegrad/core/buffer.h"
#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/lens.h"

namespace tilegrad::training {

// Which pinhole camera a distorted image becomes (COLMAP's blank_pixels = 0 or 1, see raster::undistorted_camera).
enum class UndistortMode {
  Crop,  // the largest image with no pixel lacking a source (COLMAP's default)
  Full,  // the smallest image that keeps every source pixel; pixels without a source are masked out
};
const char* to_string(UndistortMode mode);
UndistortMode undistort_mode_from_string(const std::string& name);  // "crop" or "full"; InvalidArgument else

// How source pixels are interpolated when an image is resampled (element/resample.h).
enum class Interpolation { Bicubic, Bilinear };
const char* to_string(Interpolation interpolation);
Interpolation interpolation_from_string(const std::string& name);  // "bicubic" or "bilinear"

struct ResolutionOptions {
  UndistortMode undistort = UndistortMode::Crop;
  Interpolation interpolation = Interpolation::Bicubic;
  int downscale = 1;   // integer factor (box filter when nothing else resamples the image)
  int width = 0;       // > 0: training width in pixels, the height keeps the aspect ratio (rounded)
  int max_width = 0;   // > 0, with downscale 1 and no width: images wider than this are scaled to it
};

// How one image becomes a training image.
struct ImagePlan {
  raster::Camera source;  // the file's camera (its pose is kept throughout)
  raster::Lens lens;
  raster::LensCoefficients<double> coefficients;  // of the lens, with its domain (raster::lens_coefficients)
  raster::Camera undistorted;  // the pinhole camera at the source's pixel density
  raster::Camera target;       // the training camera
  int box_downscale = 0;       // > 0: a pinhole image reduced by this integer factor with the exact box filter
  int subsamples = 1;          // otherwise: resampled with n x n samples per pixel
  Interpolation interpolation = Interpolation::Bicubic;
  bool capped = false;         // max_width applied
};

// InvalidArgument for bad options; IoError-free (no files are read).
ImagePlan plan_image(const raster::Camera& source, const raster::Lens& lens, const ResolutionOptions& options,
                     bool has_mask);

struct ResampledImage {
  Buffer<std::uint8_t> rgba;   // [H, W, 4] premultiplied RGBA8 on the requested device
  Buffer<std::uint8_t> valid;  // [H, W], 1 for pixels that count; empty when all of them do
  std::size_t valid_pixels = 0;
};

// Resamples a premultiplied RGBA8 source [source.height, source.width, 4] (and an optional 0..255 mask
// [source.height, source.width]) onto plan.target, on `device` (the inputs may live on either device).
// Deterministic on each device; the CPU and CUDA results agree to one unit of the last 8-bit digit.
ResampledImage resample_image(const ImagePlan& plan, View<const std::uint8_t> source,
                              View<const std::uint8_t> source_mask, Device device);

}  // namespace tilegrad::training
