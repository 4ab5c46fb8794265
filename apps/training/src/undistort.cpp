// Image plans (undistorted camera, training resolution) and resampling on the CPU or through the CUDA kernel.
#include "tilegrad/training/undistort.h"

#include <algorithm>
#include <cmath>

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/element/resample.h"
#if TILEGRAD_WITH_CUDA
#include "cuda_backend.h"
#endif

namespace tilegrad::training {

const char* to_string(UndistortMode mode) { return mode == UndistortMode::Full ? "full" : "crop"; }

UndistortMode undistort_mode_from_string(const std::string& name) {
  if (name == "crop") return UndistortMode::Crop;
  if (name == "full") return UndistortMode::Full;
  throw InvalidArgument("undistortion mode must be crop or full, got '" + name + "'");
}

const char* to_string(Interpolation i) { return i == Interpolation::Bilinear ? "bilinear" : "bicubic"; }

Interpolation interpolation_from_string(const std::string& name) {
  if (name == "bicubic") return Interpolation::Bicubic;
  if (name == "bilinear") return Interpolation::Bilinear;
  throw InvalidArgument("interpolation must be bicubic or bilinear, got '" + name + "'");
}

namespace {

// The camera scaled to a new size, one factor per axis (pixel edges map to pixel edges).
raster::Camera resized(const raster::Camera& c, int width, int height) {
  raster::Camera out = c;
  const double sx = double(width) / c.width, sy = double(height) / c.height;
  out.fx = float(c.fx * sx), out.cx = float(c.cx * sx);
  out.fy = float(c.fy * sy), out.cy = float(c.cy * sy);
  out.width = width, out.height = height;
  return out;
}

int height_for_width(const raster::Camera& c, int width) {
  return std::max(1, int(std::lround(double(c.height) * width / c.width)));
}

}  // namespace

ImagePlan plan_image(const raster::Camera& source, const raster::Lens& lens, const ResolutionOptions& o,
                     bool has_mask) {
  TG_CHECK_ARG(o.downscale >= 1, "downscale must be >= 1, got ", o.downscale);
  TG_CHECK_ARG(o.width >= 0 && o.max_width >= 0, "widths must not be negative");
  TG_CHECK_ARG(o.width == 0 || o.downscale == 1, "give a downscale factor or a width, not both");
  ImagePlan p;
  p.source = source;
  p.lens = lens;
  p.coefficients = raster::lens_coefficients(lens);
  p.interpolation = o.interpolation;
  const bool pinhole = raster::is_pinhole(lens);
  p.undistorted = raster::undistorted_camera(source, lens, o.undistort == UndistortMode::Full ? 1.0 : 0.0);
  if (!pinhole) {
    // COLMAP scales the principal point with the size; moving it by whole pixels instead (at most half a pixel
    // from COLMAP's choice) keeps the undistorted pixel grid in phase with the source grid near the axis, where
    // resampling then reads pixel centres rather than averaging neighbours.
    raster::Camera& u = p.undistorted;
    u.cx = source.cx + std::round(u.cx - source.cx);
    u.cy = source.cy + std::round(u.cy - source.cy);
  }
  const raster::Camera& u = p.undistorted;
  bool integer = true;
  if (o.width > 0) {
    p.target = resized(u, o.width, height_for_width(u, o.width));
    integer = false;
  } else if (o.downscale > 1) {
    p.target = downscale_camera(u, o.downscale);
  } else if (o.max_width > 0 && u.width > o.max_width) {
    p.target = resized(u, o.max_width, height_for_width(u, o.max_width));
    p.capped = true;
    integer = false;
  } else {
    p.target = u;
  }
  TG_CHECK_ARG(p.target.width >= 1 && p.target.height >= 1, "a ", u.width, "x", u.height,
               " image has no pixels left at downscale ", o.downscale);
  if (pinhole && integer && !has_mask) {
    p.box_downscale = o.downscale;
  } else {
    const double ratio = std::max(double(u.width) / p.target.width, double(u.height) / p.target.height);
    p.subsamples = std::max(1, int(std::ceil(ratio - 1e-6)));
  }
  return p;
}

ResampledImage resample_image(const ImagePlan& plan, View<const std::uint8_t> source,
                              View<const std::uint8_t> source_mask, Device device) {
  require_device(device);
  const raster::Camera &s = plan.source, &t = plan.target;
  const std::size_t src_pixels = std::size_t(s.width) * s.height, dst_pixels = std::size_t(t.width) * t.height;
  TG_CHECK_ARG(source.count == src_pixels * 4, "resample: the source has ", source.count, " bytes, its camera needs ",
               src_pixels * 4);
  TG_CHECK_ARG(source_mask.count == 0 || source_mask.count == src_pixels, "resample: the mask has ",
               source_mask.count, " pixels, the source ", src_pixels);
  TG_CHECK_ARG(plan.subsamples >= 1, "resample: subsamples must be >= 1");
  // Inputs on the working device.
  Buffer<std::uint8_t> moved_source, moved_mask;
  if (source.device != device) {
    moved_source = Buffer<std::uint8_t>::from(source, device);
    source = moved_source.cview();
  }
  if (source_mask.count > 0 && source_mask.device != device) {
    moved_mask = Buffer<std::uint8_t>::from(source_mask, device);
    source_mask = moved_mask.cview();
  }
  ResampledImage out;
  out.rgba = Buffer<std::uint8_t>(dst_pixels * 4, device);
  out.valid = Buffer<std::uint8_t>(dst_pixels, device);

  ResampleArgs a;
  a.lens = raster::to_float(plan.coefficients);
  a.src_fx = s.fx, a.src_fy = s.fy, a.src_cx = s.cx, a.src_cy = s.cy;
  a.src_width = s.width, a.src_height = s.height;
  a.dst_fx = t.fx, a.dst_fy = t.fy, a.dst_cx = t.cx, a.dst_cy = t.cy;
  a.dst_width = t.width, a.dst_height = t.height;
  a.subsamples = plan.subsamples;
  // With several samples per pixel their mean is the low-pass filter: each sample is read bilinearly.
  a.bicubic = plan.interpolation == Interpolation::Bicubic && plan.subsamples == 1;
  a.source = source.ptr;
  a.source_mask = source_mask.count > 0 ? source_mask.ptr : nullptr;
  a.target = out.rgba.data();
  a.valid = out.valid.data();

  std::vector<std::uint8_t> valid_host;
  if (device == Device::Cpu) {
    const std::ptrdiff_t rows = t.height;
#pragma omp parallel for schedule(dynamic, 8) if (dst_pixels > (1 << 15))
    for (std::ptrdiff_t y = 0; y < rows; ++y)
      for (int x = 0; x < t.width; ++x) resample_pixel(a, x, int(y));
  } else {
#if TILEGRAD_WITH_CUDA
    cuda_backend::resample(a);
#endif
  }
  const std::vector<std::uint8_t> valid = out.valid.to_vector();
  out.valid_pixels = std::size_t(std::count(valid.begin(), valid.end(), std::uint8_t(1)));
  if (out.valid_pixels == dst_pixels) out.valid = Buffer<std::uint8_t>();
  return out;
}

}  // namespace tilegrad::training
