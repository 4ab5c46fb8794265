// `tilegrad render`: renders a .ply from a dataset's cameras or from an orbit around the scene, writing PNGs
// (and optionally depth and alpha PNGs), with a progress line and the time per frame.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/image.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/outputs.h"

namespace tilegrad::cli {
namespace {

struct RenderArgs {
  std::string ply, dataset, split = "test", out, device = "auto", background = "auto";
  int orbit = 0, width = 0, height = 0, sh_degree = -1;
  float elevation = 25.0f, fov = 40.0f, distance = 0.0f;
  std::vector<float> up = {0.0f, 0.0f, 1.0f};
  bool depth = false, alpha = false, antialiased = false, pfm = false;
};

struct Frame {
  std::string name;
  raster::Camera camera;
};

// The camera rescaled to width x height (intrinsics scale with the image; 0 keeps that side, or follows the
// other side's scale when only one is given).
raster::Camera resized(raster::Camera c, int width, int height) {
  if (width <= 0 && height <= 0) return c;
  const float sx = width > 0 ? float(width) / float(c.width) : float(height) / float(c.height);
  const float sy = height > 0 ? float(height) / float(c.height) : sx;
  c.fx *= sx;
  c.cx *= sx;
  c.fy *= sy;
  c.cy *= sy;
  c.width = width > 0 ? width : int(std::lround(float(c.width) * sx));
  c.height = height > 0 ? height : int(std::lround(float(c.height) * sy));
  return c;
}

// Cameras on a circle around the scene's centre (median of the means), `elevation` degrees above the plane
// orthogonal to `up`, far enough that 90% of the means fit in the field of view.
std::vector<Frame> orbit_frames(const RenderArgs& a, const raster::Gaussians& scene) {
  const std::vector<float> means = scene.means.to_vector();
  const std::size_t n = scene.count();
  TG_CHECK_ARG(n > 0, "render --orbit: the scene has no Gaussians");
  Vec3<float> centre;
  std::vector<float> axis(n);
  for (int k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < n; ++i) axis[i] = means[3 * i + k];
    std::nth_element(axis.begin(), axis.begin() + std::ptrdiff_t(n / 2), axis.end());
    centre[k] = axis[n / 2];
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3<float> p{{means[3 * i], means[3 * i + 1], means[3 * i + 2]}};
    axis[i] = norm(p - centre);
  }
  std::nth_element(axis.begin(), axis.begin() + std::ptrdiff_t(n * 9 / 10), axis.end());
  const float radius = std::max(axis[n * 9 / 10], 1e-3f);
  const float fov = a.fov * 3.14159265f / 180.0f;
  const float distance = a.distance > 0 ? a.distance : 1.1f * radius / std::sin(0.5f * fov);
  TG_CHECK_ARG(a.up.size() == 3, "--up takes three numbers");
  Vec3<float> up{{a.up[0], a.up[1], a.up[2]}};
  TG_CHECK_ARG(norm(up) > 0, "--up must not be zero");
  up = up / norm(up);
  // An orthonormal frame (e1, e2) of the plane orthogonal to up.
  Vec3<float> e1 = cross(up, std::fabs(up[0]) < 0.9f ? Vec3<float>{{1, 0, 0}} : Vec3<float>{{0, 1, 0}});
  e1 = e1 / norm(e1);
  const Vec3<float> e2 = cross(up, e1);
  const int width = a.width > 0 ? a.width : 800, height = a.height > 0 ? a.height : width;
  const float el = a.elevation * 3.14159265f / 180.0f;
  std::vector<Frame> frames;
  for (int i = 0; i < a.orbit; ++i) {
    const float az = 2.0f * 3.14159265f * float(i) / float(a.orbit);
    const Vec3<float> dir = (e1 * std::cos(az) + e2 * std::sin(az)) * std::cos(el) + up * std::sin(el);
    char name[32];
    std::snprintf(name, sizeof(name), "orbit_%04d", i);
    // look_at takes the vertical field of view; --fov is horizontal.
    const float fov_y = 2.0f * std::atan(std::tan(0.5f * fov) * float(height) / float(width));
    frames.push_back({name, raster::Camera::look_at(centre + dir * distance, centre, up, fov_y, width, height)});
  }
  return frames;
}

// The dataset's frames; images_have_alpha tells the automatic background (from the first image's header).
std::vector<Frame> dataset_frames(const RenderArgs& a, bool& images_have_alpha) {
  training::DatasetOptions o;
  o.path = a.dataset;
  o.eval = true;  // without a split in the dataset, the test views are every 8th image, as `train --eval` holds out
  o.load_train_images = o.load_test_images = false;
  const training::TrainingDataset data = training::load_dataset(o);
  std::vector<const training::TrainingView*> views;
  for (const auto& v : data.train)
    if (a.split != "test") views.push_back(&v);
  for (const auto& v : data.test)
    if (a.split != "train") views.push_back(&v);
  std::vector<Frame> frames;
  for (const training::TrainingView* view : views) {
    const training::TrainingView& v = *view;
    // The dataset's name without extension, folders joined by '_' (train/r_0 and test/r_0 stay apart).
    std::string name = v.name;
    const std::size_t dot = name.find_last_of('.');
    if (dot != std::string::npos && dot > 0 && name.find_first_of("/\\", dot) == std::string::npos)
      name = name.substr(0, dot);
    std::replace(name.begin(), name.end(), '/', '_');
    std::replace(name.begin(), name.end(), '\\', '_');
    frames.push_back({name, resized(v.camera, a.width, a.height)});
  }
  TG_CHECK_ARG(!frames.empty(), a.dataset, ": no ", a.split, " views");
  int w = 0, h = 0, channels = 0;
  io::read_image_size(views.front()->image_path, w, h, channels);
  images_have_alpha = channels == 2 || channels == 4;
  return frames;
}

// Host bytes a render of `pixels` needs at least: the rasterizer's image, alpha, depth and per-pixel blending
// state (24 B), and writing the PNG (a float copy, 8-bit pixels and the encoded file: 20 B).
constexpr double kRenderBytesPerPixel = 44.0;

// Refuses, before any work, a frame larger than this machine's memory (instead of failing in an allocation).
void check_render_memory(const std::vector<Frame>& frames) {
  double largest = 0;
  const Frame* frame = nullptr;
  for (const Frame& f : frames) {
    const double pixels = double(f.camera.width) * double(f.camera.height);
    if (pixels > largest) largest = pixels, frame = &f;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (!frame || pages <= 0 || page <= 0) return;
  const double needed = largest * kRenderBytesPerPixel, total = double(pages) * double(page);
  if (needed > total || largest > double(std::numeric_limits<int>::max()))
    throw InvalidArgument(detail::concat("a ", frame->camera.width, "x", frame->camera.height,
                                         " render needs about ", needed / double(1 << 30), " GiB of memory, more than "
                                         "this machine's ", total / double(1 << 30), " GiB: choose a smaller "
                                         "--width/--height"));
}

void run_render(const RenderArgs& a) {
  TG_CHECK_ARG(a.dataset.empty() != (a.orbit == 0), "give exactly one of --dataset DIR or --orbit N");
  training::TrainConfig bg;
  training::set_background(bg, a.background);
  TG_CHECK_ARG(bg.background_mode != training::BackgroundMode::Random, "--background random is for training only");
  const Device device = training::device_from_option(a.device);
  const raster::Gaussians scene = io::read_gaussians_ply(a.ply).to(device);
  // Auto: as for evaluation with a dataset; white for orbits (synthetic scenes, the usual subject of orbits).
  bool images_have_alpha = true;
  const std::vector<Frame> frames = a.orbit > 0 ? orbit_frames(a, scene) : dataset_frames(a, images_have_alpha);
  check_render_memory(frames);
  raster::RasterSettings settings;
  training::evaluation_background(bg, images_have_alpha, settings.background);
  settings.sh_degree = a.sh_degree;
  settings.antialiased = a.antialiased;
  settings.render_depth = a.depth;
  raster::Rasterizer rasterizer(device);
  const bool tty = isatty(fileno(stdout));
  double total_ms = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    const auto t0 = std::chrono::steady_clock::now();
    const raster::ForwardOutput out = rasterizer.forward(scene.view(), f.camera, settings);
    synchronize(device);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    total_ms += ms;
    const std::string base = a.out + "/" + f.name;
    training::write_image_png(base + ".png", out.image, f.camera.width, f.camera.height, 3);
    if (a.alpha) training::write_image_png(base + "_alpha.png", out.alpha, f.camera.width, f.camera.height, 1);
    if (a.pfm) {  // the exact float image (tests compare other renderers with it)
      io::Image exact(f.camera.width, f.camera.height, 3);
      exact.pixels = out.image.to_vector();
      io::write_pfm(base + ".pfm", exact);
    }
    if (a.depth) training::write_depth_png(base + "_depth.png", out.depth, out.alpha, f.camera.width, f.camera.height);
    std::printf("%srender %zu/%zu %s.png (%dx%d) %.1f ms%s", tty ? "\r" : "", i + 1, frames.size(), f.name.c_str(),
                f.camera.width, f.camera.height, ms, tty ? "   " : "\n");
    std::fflush(stdout);
  }
  if (tty) std::printf("\n");
  std::printf("%zu frames of %zu Gaussians on %s: %.2f ms per frame (render only), written to %s\n", frames.size(),
              scene.count(), to_string(device), total_ms / double(frames.size()), a.out.c_str());
}

void add_render_command(CLI::App& app) {
  auto a = std::make_shared<RenderArgs>();
  auto* cmd = app.add_subcommand("render", "Render a .ply from a dataset's cameras or an orbit, to PNGs");
  cmd->add_option("--ply", a->ply, "Scene (.ply, 3DGS layout)")->required();
  cmd->add_option("--dataset", a->dataset, "Render the cameras of this dataset folder");
  cmd->add_option("--split", a->split, "Dataset views: test (its own split, or every 8th image), train or all")
      ->check(CLI::IsMember({"test", "train", "all"}))
      ->capture_default_str();
  cmd->add_option("--orbit", a->orbit, "Render N views on a circle around the scene")->check(checks::positive());
  cmd->add_option("--out", a->out, "Output folder")->required();
  cmd->add_option("--width", a->width, "Image width (dataset: rescales its cameras; orbit default 800)")
      ->check(checks::positive());
  cmd->add_option("--height", a->height, "Image height (default: keeps the aspect ratio)")->check(checks::positive());
  cmd->add_option("--elevation", a->elevation, "Orbit: degrees above the horizontal plane")->capture_default_str();
  cmd->add_option("--fov", a->fov, "Orbit: horizontal field of view in degrees")
      ->check(checks::range(1.0, 170.0))
      ->capture_default_str();
  cmd->add_option("--distance", a->distance, "Orbit: camera distance from the centre (0: fit the scene)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--up", a->up, "Orbit: up direction (x y z)")->expected(3)->capture_default_str();
  cmd->add_option("--background", a->background,
                  "auto (dataset: white for images with alpha, else black; orbit: white), white, black or r,g,b")
      ->capture_default_str();
  cmd->add_option("--sh-degree", a->sh_degree, "SH degree to render with (-1: all stored)")
      ->check(checks::range(-1, 3))
      ->capture_default_str();
  cmd->add_flag("--antialiased", a->antialiased, "Antialiased rasterization");
  cmd->add_flag("--depth", a->depth, "Also write <name>_depth.png (near bright, far dark)");
  cmd->add_flag("--alpha", a->alpha, "Also write <name>_alpha.png");
  cmd->add_flag("--pfm", a->pfm, "Also write the float image as <name>.pfm");
  cmd->add_option("--device", a->device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->callback([a] { run_render(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(render, add_render_command);

}  // namespace tilegrad::cli
