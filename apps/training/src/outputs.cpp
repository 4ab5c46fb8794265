// Run files: JSON with nlohmann, PNGs through the io library.
#include "tilegrad/training/outputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tilegrad/core/error.h"
#include "tilegrad/io/atomic_file.h"
#include "tilegrad/io/image.h"

namespace tilegrad::training {

using json = nlohmann::json;

namespace {

json stage_json(const StageTimes& t) {
  return {{"render", t.render},       {"loss", t.loss},       {"backward", t.backward},
          {"optimizer", t.optimizer}, {"densify", t.densify}, {"total", t.total()}};
}

// Non-finite numbers are not JSON: null instead.
json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

}  // namespace

void write_text_file(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  io::write_file_atomically(path, text);
}

std::string run_config_json(const TrainConfig& config, const DatasetOptions& data) {
  json j = json::parse(config_to_json(config));
  j["data"] = {
      {"path", data.path}, {"downscale", data.downscale}, {"eval", data.eval}, {"holdout_every", data.holdout_every}};
  j["data"]["width"] = data.width;
  j["data"]["max_width"] = data.max_width;
  j["data"]["undistort"] = to_string(data.undistort);
  j["data"]["interpolation"] = to_string(data.interpolation);
  j["data"]["images"] = data.images;
  j["data"]["masks"] = data.masks;
  j["data"]["test_every"] = data.test_every;
  j["data"]["skip_missing_images"] = data.skip_missing_images;
  j["data"]["near_plane"] = data.near_plane;
  return j.dump(2);
}

std::string evaluation_json_line(int iteration, const std::string& split, const Evaluation& e) {
  const json j = {{"iteration", iteration},
                  {"eval",
                   {{"split", split},
                    {"views", e.views.size()},
                    {"psnr", number(e.psnr)},
                    {"ssim", number(e.ssim)},
                    {"l1", number(e.l1)},
                    {"seconds", e.seconds}}}};
  return j.dump();
}

std::string progress_json_line(const Progress& p) {
  json j = {{"iteration", p.iteration},
            {"loss", number(p.loss)},
            {"psnr", number(p.psnr)},
            {"gaussians", p.gaussians},
            {"densify_events", p.densify_events},
            {"iterations_per_second", p.iterations_per_second},
            {"elapsed_seconds", p.elapsed_seconds},
            {"position_lr", p.position_lr},
            {"sh_degree", p.sh_degree},
            {"stage_ms", stage_json(p.times)}};
  if (!p.distributed.empty()) j["distributed"] = json::parse(p.distributed);
  return j.dump();
}

void write_cameras_json(const std::string& path, const std::vector<const TrainingView*>& views) {
  json out = json::array();
  for (std::size_t i = 0; i < views.size(); ++i) {
    const raster::Camera& c = views[i]->camera;
    const Vec3<float> pos = c.position();
    const Mat3<float> c2w = c.rotation.transposed();
    json rot = json::array();
    for (int r = 0; r < 3; ++r) rot.push_back({c2w(r, 0), c2w(r, 1), c2w(r, 2)});
    out.push_back({{"id", i},
                   {"img_name", views[i]->name},
                   {"width", c.width},
                   {"height", c.height},
                   {"position", {pos[0], pos[1], pos[2]}},
                   {"rotation", rot},
                   {"fx", c.fx},
                   {"fy", c.fy}});
  }
  write_text_file(path, out.dump(1) + "\n");
}

void write_metrics_json(const std::string& path, const Evaluation& e, const RunSummary* s) {
  json views = json::array();
  for (const ViewMetrics& v : e.views)
    views.push_back({{"name", v.name}, {"psnr", number(v.psnr)}, {"ssim", number(v.ssim)}, {"l1", number(v.l1)}});
  TG_CHECK_ARG(!e.split.empty(), path, ": the evaluation's split is not set");
  json j = {{"split", e.split},
            {"views", e.views.size()},
            {"psnr", number(e.psnr)},
            {"ssim", number(e.ssim)},
            {"l1", number(e.l1)},
            {"evaluation_seconds", e.seconds},
            {"per_view", views}};
  if (s) {
    j["iterations"] = s->iterations;
    j["training_seconds"] = s->training_seconds;
    j["checkpoints"] = {{"count", s->checkpoints.count},
                        {"seconds", s->checkpoints.seconds},
                        {"fraction_of_training_time",
                         s->training_seconds > 0 ? s->checkpoints.seconds / s->training_seconds : 0.0}};
    json segments = json::array();
    for (const Segment& g : s->segments)
      segments.push_back(
          {{"first_iteration", g.first_iteration}, {"last_iteration", g.last_iteration}, {"seconds", g.seconds}});
    j["segments"] = segments;
    j["gaussians"] = s->gaussians;
    j["peak_gpu_memory_bytes"] = s->peak_gpu_bytes;
    j["stage_ms_per_iteration"] = stage_json(s->times);
    j["device"] = s->device;
    j["dataset"] = s->dataset;
    if (!s->distributed.empty()) j["distributed"] = json::parse(s->distributed);
  }
  write_text_file(path, j.dump(2) + "\n");
}

void write_image_png(const std::string& path, const Buffer<float>& image, int width, int height, int channels) {
  TG_CHECK_ARG(image.size() == std::size_t(width) * height * channels, path, ": image buffer size mismatch");
  io::Image img(width, height, channels);
  img.pixels = image.to_vector();
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  io::write_png(path, img);
}

RenderSink png_sink(const std::string& folder) {
  return [folder](std::size_t i, const TrainingView& v, const raster::ForwardOutput& out) {
    char name[32];
    std::snprintf(name, sizeof(name), "%05zu.png", i);
    write_image_png(folder + "/" + name, out.image, v.camera.width, v.camera.height, 3);
  };
}

void write_depth_png(const std::string& path, const Buffer<float>& depth, const Buffer<float>& alpha, int width,
                     int height) {
  const std::vector<float> d = depth.to_vector(), a = alpha.to_vector();
  TG_CHECK_ARG(d.size() == std::size_t(width) * height && a.size() == d.size(), path, ": depth buffer size mismatch");
  // Pixels covered by less than this much are background, not surfaces.
  constexpr float kCovered = 0.5f;
  std::vector<float> z(d.size(), 0.0f), covered;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (a[i] < kCovered) continue;
    z[i] = d[i] / a[i];
    covered.push_back(z[i]);
  }
  io::Image img(width, height, 1);
  if (!covered.empty()) {
    std::sort(covered.begin(), covered.end());
    const float lo = covered[covered.size() / 100], hi = covered[covered.size() - 1 - covered.size() / 100];
    const float range = std::max(hi - lo, 1e-6f);
    for (std::size_t i = 0; i < z.size(); ++i)
      img.pixels[i] = a[i] < kCovered ? 0.0f : 1.0f - 0.9f * std::clamp((z[i] - lo) / range, 0.0f, 1.0f);
  }
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  io::write_png(path, img);
}

}  // namespace tilegrad::training
