// Dataset loading for training: frames from the io loaders, splits, parallel decoding, device upload.
#include "tilegrad/training/dataset.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>

#include "tilegrad/core/error.h"
#include "tilegrad/io/colmap.h"
#include "tilegrad/io/image.h"
#include "tilegrad/io/transforms.h"
#include "view_images.h"

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

// Frames 0, N, 2N, ... (N = every) are test frames, as the reference implementation holds out.
void hold_out(std::vector<io::DatasetFrame> all, int every, Frames& f) {
  for (std::size_t i = 0; i < all.size(); ++i) (i % std::size_t(every) == 0 ? f.test : f.train).push_back(all[i]);
}

io::FrameOptions frame_options(const DatasetOptions& o) {
  io::FrameOptions fo;
  fo.require_images = true;
  fo.missing_images = o.skip_missing_images ? io::MissingImages::Skip : io::MissingImages::Error;
  fo.image_folder = o.images;
  fo.mask_folder = o.masks;
  return fo;
}

Frames read_frames(const io::DatasetLayout& layout, const DatasetOptions& o, TrainingDataset& d) {
  Frames f;
  const io::FrameOptions fo = frame_options(o);
  const int every = test_every_for(o, layout.kind);
  auto split_or_not = [&](std::vector<io::DatasetFrame> all, const std::string& source) {
    f.train_source = f.test_source = source;
    if (every > 0) {
      hold_out(std::move(all), every, f);
    } else {
      f.train = std::move(all);
    }
  };
  switch (layout.kind) {
    case io::DatasetKind::Colmap: {
      io::ColmapScene scene = io::load_colmap_scene(layout.root, fo);
      d.points = std::move(scene.points);
      if (d.points.size() > 0) d.points_file = scene.sparse_dir;
      d.skipped = std::move(scene.skipped);
      split_or_not(std::move(scene.frames), scene.sparse_dir);
      break;
    }
    case io::DatasetKind::NerfSynthetic:
      f.train = io::load_transforms(layout.transforms_train, fo, &d.skipped);
      f.train_source = layout.transforms_train;
      if (!layout.transforms_test.empty()) {
        f.test = io::load_transforms(layout.transforms_test, fo, &d.skipped);
        f.test_source = layout.transforms_test;
      } else if (every > 0) {
        std::vector<io::DatasetFrame> all = std::move(f.train);
        f.train.clear();
        hold_out(std::move(all), every, f);
        f.test_source = layout.transforms_train;
      }
      break;
    case io::DatasetKind::Transforms:
      split_or_not(io::load_transforms(layout.transforms, fo, &d.skipped), layout.transforms);
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
    throw IoError(concat(f.train_source, ": no training images", every > 0 ? " left after holding out test images" : ""));
  if (o.eval && f.test.empty())
    throw IoError(
        concat(f.test_source, ": --eval needs at least one test image (", f.train.size(), " image(s) in total)"));
  return f;
}

// Decodes and prepares the images of `views`; the first error (in view order) is rethrown. On the CPU every
// image is decoded and resampled by one thread; for the GPU, chunks of images are decoded by the CPU threads
// and then resampled by the GPU one after the other.
void load_images(std::vector<TrainingView>& views, Device device, bool& has_alpha) {
  const std::size_t chunk = device == Device::Cpu ? views.size() : 16;
  for (std::size_t begin = 0; begin < views.size(); begin += chunk) {
    const std::size_t end = std::min(views.size(), begin + chunk);
    const auto n = static_cast<std::ptrdiff_t>(end - begin);
    std::vector<SourceImage> sources(end - begin);
    std::vector<ResampledImage> done(end - begin);
    std::vector<std::exception_ptr> errors(end - begin);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      try {
        const TrainingView& v = views[begin + std::size_t(i)];
        SourceImage& source = sources[std::size_t(i)];
        source = decode_view_source(v);
        if (device == Device::Cpu) {
          done[std::size_t(i)] = make_view_image(v, source, device);
          source.rgba = {};  // only the training image stays in memory
          source.mask = {};
        }
      } catch (...) {
        errors[std::size_t(i)] = std::current_exception();
      }
    }
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (std::size_t i = 0; i < done.size(); ++i) {
      TrainingView& v = views[begin + i];
      if (device != Device::Cpu) done[i] = make_view_image(v, sources[i], device);
      v.image = std::move(done[i].rgba);
      v.valid = std::move(done[i].valid);
      v.valid_pixels = done[i].valid_pixels;
      has_alpha = has_alpha || sources[i].has_alpha;
    }
  }
}

// The plan of every frame; frames that share intrinsics and lens (one COLMAP camera) share the work.
std::vector<TrainingView> to_views(const std::vector<io::DatasetFrame>& frames, const ResolutionOptions& ro,
                                   float near_plane) {
  std::map<std::string, ImagePlan> plans;
  std::vector<TrainingView> views;
  for (const io::DatasetFrame& f : frames) {
    const raster::Camera& c = f.camera;
    std::string key(reinterpret_cast<const char*>(&f.lens.model), sizeof(f.lens.model));
    key.append(reinterpret_cast<const char*>(f.lens.params), sizeof(f.lens.params));
    for (const float x : {c.fx, c.fy, c.cx, c.cy}) key.append(reinterpret_cast<const char*>(&x), sizeof(x));
    for (const int x : {c.width, c.height, f.mask_path.empty() ? 0 : 1})
      key.append(reinterpret_cast<const char*>(&x), sizeof(x));
    auto it = plans.find(key);
    if (it == plans.end()) {
      try {
        it = plans.emplace(key, plan_image(c, f.lens, ro, !f.mask_path.empty())).first;
      } catch (const InvalidArgument& e) {
        throw IoError(concat(f.image_path, ": ", e.what()));
      }
    }
    TrainingView v;
    v.name = f.name;
    v.image_path = f.image_path;
    v.mask_path = f.mask_path;
    v.plan = it->second;
    // The shared plan's cameras carry another frame's pose: this frame's pose goes into all of them.
    for (raster::Camera* pc : {&v.plan.source, &v.plan.undistorted, &v.plan.target}) {
      pc->rotation = c.rotation;
      pc->translation = c.translation;
      pc->near_plane = near_plane;
    }
    v.camera = v.plan.target;
    views.push_back(std::move(v));
  }
  return views;
}

// Notes on what loading changed: undistortion per lens model, capped resolution.
void add_notes(TrainingDataset& d, const DatasetOptions& o) {
  std::map<std::string, std::pair<int, std::string>> undistorted;  // model -> (views, example sizes)
  int capped = 0;
  std::string capped_example;
  for (const std::vector<TrainingView>* views : {&d.train, &d.test}) {
    for (const TrainingView& v : *views) {
      const ImagePlan& p = v.plan;
      if (!raster::is_pinhole(p.lens)) {
        auto& u = undistorted[raster::to_string(p.lens.model)];
        if (u.first++ == 0)
          u.second = concat(p.source.width, "x", p.source.height, " -> ", p.undistorted.width, "x",
                            p.undistorted.height);
      }
      if (p.capped && capped++ == 0)
        capped_example = concat(p.undistorted.width, "x", p.undistorted.height, " -> ", p.target.width, "x",
                                p.target.height);
    }
  }
  for (const auto& [model, u] : undistorted)
    d.notes.push_back(concat("undistorted ", u.first, " view(s) with ", model, " lenses into pinhole cameras (",
                             to_string(o.undistort), " mode, e.g. ", u.second, ")"));
  if (capped > 0)
    d.notes.push_back(concat(capped, " view(s) are wider than ", o.max_width, " pixels and are scaled to that width (",
                             capped_example, "), as the original 3DGS does (--max-width 0 keeps the full "
                             "resolution; --width or --downscale choose one)"));
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

int test_every_for(const DatasetOptions& o, io::DatasetKind kind) {
  if (o.test_every >= 0) return o.test_every;
  return kind == io::DatasetKind::Colmap || o.eval ? o.holdout_every : 0;
}

TrainingDataset copy_dataset(const TrainingDataset& d, Device device) {
  TrainingDataset c;
  static_cast<DatasetInfo&>(c) = d;
  for (auto [from, to] : {std::pair{&d.train, &c.train}, std::pair{&d.test, &c.test}}) {
    for (const TrainingView& v : *from) {
      TrainingView w;
      static_cast<ViewInfo&>(w) = v;
      if (!v.image.empty()) w.image = v.image.to(device);
      if (!v.valid.empty()) w.valid = v.valid.to(device);
      to->push_back(std::move(w));
    }
  }
  return c;
}

TrainingDataset load_dataset(const DatasetOptions& o) {
  TG_CHECK_ARG(o.downscale >= 1, "downscale must be >= 1, got ", o.downscale);
  TG_CHECK_ARG(o.holdout_every >= 2, "holdout_every must be >= 2, got ", o.holdout_every);
  TG_CHECK_ARG(o.test_every == -1 || o.test_every == 0 || o.test_every >= 2,
               "test_every must be 0 (no test views), -1 (automatic) or >= 2, got ", o.test_every);
  TG_CHECK_ARG(o.width >= 0 && o.max_width >= 0, "width and max_width must not be negative");
  TG_CHECK_ARG(o.width == 0 || o.downscale == 1, "give a downscale factor or a width, not both");
  TG_CHECK_ARG(o.near_plane > 0 && std::isfinite(o.near_plane), "near_plane must be positive, got ", o.near_plane);
  require_device(o.device);
  const io::DatasetLayout layout = io::find_dataset(o.path);
  TrainingDataset d;
  d.kind = layout.kind;
  d.root = layout.root;
  const Frames frames = read_frames(layout, o, d);
  ResolutionOptions ro;
  ro.undistort = o.undistort;
  ro.interpolation = o.interpolation;
  ro.downscale = o.downscale;
  ro.width = o.width;
  ro.max_width = o.max_width;
  d.train = to_views(frames.train, ro, o.near_plane);
  d.test = to_views(frames.test, ro, o.near_plane);
  if (o.load_train_images) load_images(d.train, o.device, d.has_alpha);
  if (o.load_test_images) load_images(d.test, o.device, d.has_alpha);
  add_notes(d, o);
  compute_extent(d);
  return d;
}

}  // namespace tilegrad::training
