// Dataset loading for training: frames from the io loaders, splits, parallel decoding, device upload.
#include "tilegrad/training/dataset.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>

#include "tilegrad/core/error.h"
#include "tilegrad/io/colmap.h"
#include "tilegrad/io/image.h"
#include "tilegrad/io/transforms.h"

namespace tilegrad::training {

using detail::concat;

raster::Camera downscale_camera(const raster::Camera& camera, int downscale) {
  raster::Camera c = camera;
  const float f = float(downscale);
  c.fx /= f;
  c.fy /= f;
  c.cx /= f;
  c.cy /= f;
  c.width = camera.width / downscale;
  c.height = camera.height / downscale;
  return c;
}

std::vector<std::uint8_t> load_rgba_image(const std::string& path, int downscale, int& width, int& height,
                                          bool& has_alpha) {
  TG_CHECK_ARG(downscale >= 1, "downscale must be >= 1, got ", downscale);
  const io::Image img = io::read_image(path);
  const int ch = img.channels;
  if (ch < 1 || ch > 4) throw IoError(concat(path, ": unsupported channel count ", ch));
  has_alpha = ch == 2 || ch == 4;
  width = img.width / downscale;
  height = img.height / downscale;
  if (width < 1 || height < 1)
    throw IoError(concat(path, ": ", img.width, "x", img.height, " image has no pixels left at downscale ", downscale));
  std::vector<std::uint8_t> out(std::size_t(width) * height * 4);
  const double inv_area = 1.0 / double(downscale * downscale);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      // Box filter in premultiplied space, so that compositing the result on any background equals the
      // average of the composited full-resolution pixels.
      double sum[4] = {0, 0, 0, 0};
      for (int dy = 0; dy < downscale; ++dy) {
        for (int dx = 0; dx < downscale; ++dx) {
          const int sx = x * downscale + dx, sy = y * downscale + dy;
          const float alpha = has_alpha ? img.at(sx, sy, ch - 1) : 1.0f;
          const int colour_channels = has_alpha ? ch - 1 : ch;
          for (int c = 0; c < 3; ++c) sum[c] += double(img.at(sx, sy, colour_channels == 1 ? 0 : c)) * alpha;
          sum[3] += alpha;
        }
      }
      std::uint8_t* px = &out[(std::size_t(y) * width + x) * 4];
      for (int c = 0; c < 4; ++c)
        px[c] = static_cast<std::uint8_t>(std::lround(std::clamp(sum[c] * inv_area, 0.0, 1.0) * 255.0));
      // Rounding may not push a colour above its coverage.
      for (int c = 0; c < 3; ++c) px[c] = std::min(px[c], px[3]);
    }
  }
  return out;
}

namespace {

struct Frames {
  std::vector<io::DatasetFrame> train, test;
  std::string train_source, test_source;  // files named in split errors
};

// Every holdout_every-th frame (0, 8, 16, ...) is a test frame, as the reference implementation holds out.
void hold_out(std::vector<io::DatasetFrame> all, int every, Frames& f) {
  for (std::size_t i = 0; i < all.size(); ++i) (i % std::size_t(every) == 0 ? f.test : f.train).push_back(all[i]);
}

Frames read_frames(const io::DatasetLayout& layout, const DatasetOptions& o, TrainingDataset& d) {
  Frames f;
  io::FrameOptions fo;
  fo.require_images = true;
  auto split_or_not = [&](std::vector<io::DatasetFrame> all, const std::string& source) {
    f.train_source = f.test_source = source;
    if (o.eval) {
      hold_out(std::move(all), o.holdout_every, f);
    } else {
      f.train = std::move(all);
    }
  };
  switch (layout.kind) {
    case io::DatasetKind::Colmap: {
      io::ColmapScene scene = io::load_colmap_scene(layout.root, fo);
      d.points = std::move(scene.points);
      if (d.points.size() > 0) d.points_file = scene.sparse_dir;
      split_or_not(std::move(scene.frames), scene.sparse_dir);
      break;
    }
    case io::DatasetKind::NerfSynthetic:
      f.train = io::load_transforms(layout.transforms_train, fo);
      f.train_source = layout.transforms_train;
      if (!layout.transforms_test.empty()) {
        f.test = io::load_transforms(layout.transforms_test, fo);
        f.test_source = layout.transforms_test;
      } else if (o.eval) {
        std::vector<io::DatasetFrame> all = std::move(f.train);
        f.train.clear();
        hold_out(std::move(all), o.holdout_every, f);
        f.test_source = layout.transforms_train;
      }
      break;
    case io::DatasetKind::Transforms:
      split_or_not(io::load_transforms(layout.transforms, fo), layout.transforms);
      break;
  }
  // Points beside transforms files (the reference trainer's points3d.ply for synthetic scenes).
  if (layout.kind != io::DatasetKind::Colmap) {
    const std::filesystem::path ply = std::filesystem::path(layout.root) / "points3d.ply";
    std::error_code ec;
    if (std::filesystem::is_regular_file(ply, ec)) {
      d.points = io::read_points_ply(ply.string());
      d.points_file = ply.string();
    }
  }
  if (f.train.empty())
    throw IoError(concat(f.train_source, ": no training images", o.eval ? " left after holding out test images" : ""));
  if (o.eval && f.test.empty())
    throw IoError(
        concat(f.test_source, ": --eval needs at least one test image (", f.train.size(), " image(s) in total)"));
  return f;
}

// Decodes the images of `views` in parallel; the first error (in view order) is rethrown.
void load_images(std::vector<TrainingView>& views, int downscale, Device device, bool& has_alpha) {
  const auto n = static_cast<std::ptrdiff_t>(views.size());
  std::vector<std::vector<std::uint8_t>> pixels(views.size());
  std::vector<std::exception_ptr> errors(views.size());
  std::vector<char> alpha(views.size(), 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    try {
      TrainingView& v = views[std::size_t(i)];
      int w = 0, h = 0;
      bool a = false;
      pixels[std::size_t(i)] = load_rgba_image(v.image_path, downscale, w, h, a);
      alpha[std::size_t(i)] = a;
      if (w != v.camera.width || h != v.camera.height)
        throw IoError(concat(v.image_path, ": image is ", w, "x", h, " at downscale ", downscale, " but its camera is ",
                             v.camera.width, "x", v.camera.height));
    } catch (...) {
      errors[std::size_t(i)] = std::current_exception();
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (std::size_t i = 0; i < views.size(); ++i) {
    views[i].image = Buffer<std::uint8_t>::from(pixels[i], device);
    has_alpha = has_alpha || alpha[i];
  }
}

std::vector<TrainingView> to_views(const std::vector<io::DatasetFrame>& frames, int downscale) {
  std::vector<TrainingView> views;
  for (const io::DatasetFrame& f : frames) {
    TrainingView v;
    v.name = f.name;
    v.image_path = f.image_path;
    v.camera = downscale_camera(f.camera, downscale);
    if (v.camera.width < 1 || v.camera.height < 1)
      throw IoError(concat(f.image_path, ": ", f.camera.width, "x", f.camera.height,
                           " image has no pixels left at "
                           "downscale ",
                           downscale));
    views.push_back(std::move(v));
  }
  return views;
}

void compute_extent(TrainingDataset& d) {
  double c[3] = {0, 0, 0};
  for (const TrainingView& v : d.train) {
    const Vec3<float> p = v.camera.position();
    for (int k = 0; k < 3; ++k) c[k] += p[k] / double(d.train.size());
  }
  double radius = 0;
  for (const TrainingView& v : d.train) {
    const Vec3<float> p = v.camera.position();
    radius = std::max(radius, std::sqrt(sqr(p[0] - c[0]) + sqr(p[1] - c[1]) + sqr(p[2] - c[2])));
  }
  for (int k = 0; k < 3; ++k) d.center[k] = float(c[k]);
  // A single camera (or cameras at one spot) has no spread: keep a unit extent so learning rates stay sane.
  d.extent = radius > 0 ? float(1.1 * radius) : 1.0f;
}

}  // namespace

TrainingDataset load_dataset(const DatasetOptions& o) {
  TG_CHECK_ARG(o.downscale >= 1, "downscale must be >= 1, got ", o.downscale);
  TG_CHECK_ARG(o.holdout_every >= 2, "holdout_every must be >= 2, got ", o.holdout_every);
  require_device(o.device);
  const io::DatasetLayout layout = io::find_dataset(o.path);
  TrainingDataset d;
  d.kind = layout.kind;
  d.root = layout.root;
  const Frames frames = read_frames(layout, o, d);
  d.train = to_views(frames.train, o.downscale);
  d.test = to_views(frames.test, o.downscale);
  if (o.load_train_images) load_images(d.train, o.downscale, o.device, d.has_alpha);
  if (o.load_test_images) load_images(d.test, o.downscale, o.device, d.has_alpha);
  compute_extent(d);
  return d;
}

}  // namespace tilegrad::training
