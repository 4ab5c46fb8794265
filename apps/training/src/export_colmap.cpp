// Writing a dataset's pinhole views as a COLMAP scene: images (and masks) in parallel, then the sparse model.
#include "tilegrad/training/export_colmap.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <set>

#include "tilegrad/core/error.h"
#include "tilegrad/io/colmap.h"
#include "tilegrad/io/image.h"
#include "view_images.h"

namespace tilegrad::training {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Output file names: the frame's file name with .png, or its whole path with '/' as '_' when names repeat.
std::vector<std::string> output_names(const std::vector<const TrainingView*>& views) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  bool unique = true;
  for (const TrainingView* v : views) {
    names.push_back(fs::path(v->name).replace_extension(".png").filename().string());
    unique = unique && seen.insert(names.back()).second;
  }
  if (unique) return names;
  names.clear();
  for (const TrainingView* v : views) {
    std::string n = fs::path(v->name).replace_extension(".png").string();
    std::replace(n.begin(), n.end(), '/', '_');
    std::replace(n.begin(), n.end(), '\\', '_');
    names.push_back(n);
  }
  return names;
}

// Straight (not premultiplied) colour of a premultiplied RGBA8 image, as floats for the PNG writer.
io::Image straight_image(const std::vector<std::uint8_t>& rgba, int width, int height, bool alpha) {
  io::Image img(width, height, alpha ? 4 : 3);
  for (std::size_t i = 0; i < std::size_t(width) * height; ++i) {
    const float a = rgba[i * 4 + 3] / 255.0f;
    for (int c = 0; c < 3; ++c)
      img.pixels[i * img.channels + std::size_t(c)] = a > 0 ? std::min(1.0f, rgba[i * 4 + std::size_t(c)] / 255.0f / a) : 0.0f;
    if (alpha) img.pixels[i * 4 + 3] = a;
  }
  return img;
}

}  // namespace

ExportSummary write_colmap_dataset(const TrainingDataset& d, const std::string& out, const ExportOptions& o) {
  std::vector<const TrainingView*> views;
  for (const TrainingView& v : d.train) views.push_back(&v);
  for (const TrainingView& v : d.test) views.push_back(&v);
  TG_CHECK_ARG(!views.empty(), "write_colmap_dataset: the dataset has no views");
  const std::vector<std::string> names = output_names(views);
  for (const char* sub : {"images", "masks"}) {
    std::error_code ec;
    fs::create_directories(fs::path(out) / sub, ec);
    if (ec) throw IoError(out + ": cannot create " + sub + "/ (" + ec.message() + ")");
  }
  ExportSummary summary;
  const std::size_t chunk = o.device == Device::Cpu ? views.size() : 16;
  for (std::size_t begin = 0; begin < views.size(); begin += chunk) {
    const std::size_t end = std::min(views.size(), begin + chunk);
    const auto n = static_cast<std::ptrdiff_t>(end - begin);
    std::vector<std::vector<std::uint8_t>> rgba(end - begin), valid(end - begin);
    std::vector<std::exception_ptr> errors(end - begin);
    const auto t0 = Clock::now();
    auto prepare = [&](std::size_t i, const SourceImage* source) {
      const TrainingView& v = *views[begin + i];
      if (!v.image.empty()) {
        rgba[i] = v.image.to_vector();
        valid[i] = v.valid.to_vector();
        return;
      }
      ResampledImage r = make_view_image(v, *source, o.device);
      rgba[i] = r.rgba.to_vector();
      valid[i] = r.valid.to_vector();
    };
    std::vector<SourceImage> sources(end - begin);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      try {
        const TrainingView& v = *views[begin + std::size_t(i)];
        if (v.image.empty()) sources[std::size_t(i)] = decode_view_source(v);
        if (o.device == Device::Cpu) prepare(std::size_t(i), &sources[std::size_t(i)]);
      } catch (...) {
        errors[std::size_t(i)] = std::current_exception();
      }
    }
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    if (o.device != Device::Cpu)
      for (std::size_t i = 0; i < rgba.size(); ++i) prepare(i, &sources[i]);
    summary.load_seconds += seconds_since(t0);
    const auto t1 = Clock::now();
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      try {
        const std::size_t k = begin + std::size_t(i);
        const raster::Camera& c = views[k]->camera;
        io::write_png((fs::path(out) / "images" / names[k]).string(),
                      straight_image(rgba[std::size_t(i)], c.width, c.height, d.has_alpha));
        if (!valid[std::size_t(i)].empty()) {
          io::Image m(c.width, c.height, 1);
          for (std::size_t p = 0; p < m.pixels.size(); ++p) m.pixels[p] = valid[std::size_t(i)][p] ? 1.0f : 0.0f;
          io::write_png((fs::path(out) / "masks" / (names[k] + ".png")).string(), m);
        }
      } catch (...) {
        errors[std::size_t(i)] = std::current_exception();
      }
    }
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (const auto& v : valid) summary.masks += v.empty() ? 0 : 1;
    summary.write_seconds += seconds_since(t1);
  }
  if (summary.masks == 0) {
    std::error_code ec;
    fs::remove(fs::path(out) / "masks", ec);
  }

  io::ColmapModel model;
  std::map<std::array<float, 6>, std::uint32_t> camera_ids;
  for (std::size_t k = 0; k < views.size(); ++k) {
    const raster::Camera& c = views[k]->camera;
    const std::array<float, 6> key = {c.fx, c.fy, c.cx, c.cy, float(c.width), float(c.height)};
    auto it = camera_ids.find(key);
    if (it == camera_ids.end()) {
      io::ColmapCamera cam;
      cam.id = std::uint32_t(model.cameras.size() + 1);
      cam.model_id = io::colmap_model_id("PINHOLE");
      cam.width = std::uint64_t(c.width);
      cam.height = std::uint64_t(c.height);
      cam.params = {c.fx, c.fy, c.cx, c.cy};
      model.cameras.push_back(cam);
      it = camera_ids.emplace(key, cam.id).first;
    }
    model.images.push_back(io::colmap_image(c, std::uint32_t(k + 1), it->second, names[k]));
  }
  model.points = d.points;
  io::write_colmap_model((fs::path(out) / "sparse" / "0").string(), model, o.text);
  summary.images = views.size();
  summary.cameras = model.cameras.size();
  summary.points = d.points.size();
  return summary;
}

}  // namespace tilegrad::training
