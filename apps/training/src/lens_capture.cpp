// Synthetic captures through a lens: wide supersampled pinhole renders warped by the lens's inverse, written as a
// COLMAP, transforms.json or NeRF-synthetic dataset.
#include "tilegrad/training/lens_capture.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tilegrad/core/error.h"
#include "tilegrad/io/atomic_file.h"
#include "tilegrad/io/colmap.h"
#include "tilegrad/io/image.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::training {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
constexpr float kShC0 = 0.28209479177387814f;

// Where the samples of every distorted pixel fall in the wide render (NaN: no ray), and that render's camera.
struct WarpMap {
  int width = 0, height = 0;  // of the wide render
  float focal = 0, cx = 0, cy = 0;
  std::vector<float> xy;  // [H, W, s, s, 2]
};

WarpMap make_warp_map(const CaptureOptions& o, float f) {
  const int w = o.views.width, h = o.views.height, s = o.supersample;
  const raster::LensCoefficients<double> lens = raster::lens_coefficients(o.lens);
  const double cx = 0.5 * w, cy = 0.5 * h;
  std::vector<Vec2<double>> rays(std::size_t(w) * h * s * s);
  std::vector<char> ok(rays.size(), 0);
  double umax = 0, vmax = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int j = 0; j < s; ++j)
        for (int i = 0; i < s; ++i) {
          const std::size_t k = ((std::size_t(y) * w + x) * s + j) * s + i;
          const double px = x + (i + 0.5) / s, py = y + (j + 0.5) / s;
          if (!raster::undistort_point(lens, {{(px - cx) / f, (py - cy) / f}}, rays[k])) continue;
          ok[k] = 1;
          umax = std::max(umax, std::abs(rays[k][0]));
          vmax = std::max(vmax, std::abs(rays[k][1]));
        }
  WarpMap m;
  m.focal = f * float(s);
  // Even sizes centred on the axis: with a pinhole lens the samples land on the render's pixel centres.
  m.width = 2 * int(std::ceil(umax * m.focal)) + 4;
  m.height = 2 * int(std::ceil(vmax * m.focal)) + 4;
  TG_CHECK_ARG(m.width <= 16384 && m.height <= 16384, "the lens's field of view needs a ", m.width, "x", m.height,
               " pinhole render; use a longer focal length or fewer samples");
  m.cx = 0.5f * float(m.width);
  m.cy = 0.5f * float(m.height);
  m.xy.resize(rays.size() * 2);
  for (std::size_t k = 0; k < rays.size(); ++k) {
    m.xy[2 * k] = ok[k] ? float(m.focal * rays[k][0] + m.cx) : NAN;
    m.xy[2 * k + 1] = ok[k] ? float(m.focal * rays[k][1] + m.cy) : NAN;
  }
  return m;
}

// The photograph: samples of the render (premultiplied colour on black) averaged per pixel.
io::Image photograph(const std::vector<float>& render, const WarpMap& m, const CaptureOptions& o) {
  const int w = o.views.width, h = o.views.height, s = o.supersample;
  io::Image img(w, h, 3);
  auto at = [&](int x, int y, int c) {
    x = std::clamp(x, 0, m.width - 1);
    y = std::clamp(y, 0, m.height - 1);
    return render[(std::size_t(y) * m.width + x) * 3 + std::size_t(c)];
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float sum[3] = {0, 0, 0};
      for (int k = 0; k < s * s; ++k) {
        const std::size_t q = (std::size_t(y) * w + x) * s * s + std::size_t(k);
        const float qx = m.xy[2 * q] - 0.5f, qy = m.xy[2 * q + 1] - 0.5f;
        if (!std::isfinite(qx)) continue;  // no ray: black, like an unlit sensor
        const int x0 = int(std::floor(qx)), y0 = int(std::floor(qy));
        const float tx = qx - float(x0), ty = qy - float(y0);
        for (int c = 0; c < 3; ++c)
          sum[c] += (1 - ty) * ((1 - tx) * at(x0, y0, c) + tx * at(x0 + 1, y0, c)) +
                    ty * ((1 - tx) * at(x0, y0 + 1, c) + tx * at(x0 + 1, y0 + 1, c));
      }
      for (int c = 0; c < 3; ++c) img.at(x, y, c) = std::clamp(sum[c] / float(s * s), 0.0f, 1.0f);
    }
  return img;
}

// Lens keys of transforms files (instant-ngp's names); InvalidArgument for models they cannot express.
json transforms_lens_keys(const raster::Lens& lens) {
  const double* q = lens.params;
  using M = raster::LensModel;
  switch (lens.model) {
    case M::Pinhole: return json::object();
    case M::SimpleRadial: return {{"k1", q[0]}};
    case M::Radial: return {{"k1", q[0]}, {"k2", q[1]}};
    case M::OpenCV: return {{"k1", q[0]}, {"k2", q[1]}, {"p1", q[2]}, {"p2", q[3]}};
    case M::FullOpenCV:
      TG_CHECK_ARG(q[5] == 0 && q[6] == 0 && q[7] == 0,
                   "transforms files hold FULL_OPENCV only with k4 = k5 = k6 = 0; use the colmap format");
      return {{"k1", q[0]}, {"k2", q[1]}, {"p1", q[2]}, {"p2", q[3]}, {"k3", q[4]}};
    case M::OpenCVFisheye:
      return {{"is_fisheye", true}, {"k1", q[0]}, {"k2", q[1]}, {"k3", q[2]}, {"k4", q[3]}};
    case M::SimpleRadialFisheye: return {{"is_fisheye", true}, {"k1", q[0]}};
    case M::RadialFisheye: return {{"is_fisheye", true}, {"k1", q[0]}, {"k2", q[1]}};
    case M::Fov: break;
  }
  throw InvalidArgument(std::string("transforms files cannot hold the ") + raster::to_string(lens.model) +
                        " model; use the colmap format");
}

// COLMAP camera of the lens: single-focal models take f, cx, cy; the others fx, fy, cx, cy.
io::ColmapCamera colmap_camera_of(const raster::Lens& lens, float f, int w, int h) {
  using M = raster::LensModel;
  io::ColmapCamera c;
  c.id = 1;
  c.model_id = io::colmap_model_id(raster::to_string(lens.model));
  c.width = std::uint64_t(w);
  c.height = std::uint64_t(h);
  const bool single = lens.model == M::SimpleRadial || lens.model == M::Radial ||
                      lens.model == M::SimpleRadialFisheye || lens.model == M::RadialFisheye;
  c.params = single ? std::vector<double>{f, 0.5 * w, 0.5 * h} : std::vector<double>{f, f, 0.5 * w, 0.5 * h};
  for (int i = 0; i < raster::lens_param_count(lens.model); ++i) c.params.push_back(lens.params[i]);
  return c;
}

io::PointCloud scene_points(const raster::Gaussians& scene, std::size_t wanted) {
  io::PointCloud p;
  if (wanted == 0) return p;
  const raster::Gaussians host = scene.to(Device::Cpu);
  const std::vector<float> means = host.means.to_vector(), sh = host.sh.to_vector();
  const std::size_t n = host.count(), k = std::max<std::size_t>(1, (n + wanted - 1) / wanted);
  const std::size_t stride = 3 * std::size_t(raster::sh_coefficients(host.sh_degree));
  for (std::size_t i = 0; i < n; i += k) {
    for (int a = 0; a < 3; ++a) p.positions.push_back(means[3 * i + std::size_t(a)]);
    for (int c = 0; c < 3; ++c)
      p.colors.push_back(std::uint8_t(std::lround(255 * std::clamp(0.5f + kShC0 * sh[stride * i + std::size_t(c)], 0.0f, 1.0f))));
  }
  return p;
}

void write_json(const std::string& path, const json& doc) { io::write_file_atomically(path, doc.dump(2) + "\n"); }

}  // namespace

const char* to_string(CaptureFormat f) {
  switch (f) {
    case CaptureFormat::Colmap: return "colmap";
    case CaptureFormat::Transforms: return "transforms";
    case CaptureFormat::NerfSynthetic: break;
  }
  return "nerf-synthetic";
}

CaptureFormat capture_format_from_string(const std::string& name) {
  for (const CaptureFormat f : {CaptureFormat::Colmap, CaptureFormat::Transforms, CaptureFormat::NerfSynthetic})
    if (name == to_string(f)) return f;
  throw InvalidArgument("capture format must be colmap, transforms or nerf-synthetic, got '" + name + "'");
}

void write_lens_capture(const std::string& folder, const raster::Gaussians& scene, const CaptureOptions& o) {
  const SceneViewOptions& v = o.views;
  TG_CHECK_ARG(v.width > 0 && v.height > 0, "capture: image size must be positive");
  TG_CHECK_ARG(v.train_views >= 1 && v.test_views >= 0, "capture: need at least one train view");
  TG_CHECK_ARG(o.supersample >= 1 && o.supersample <= 16, "capture: supersample must be in 1..16");
  TG_CHECK_ARG(o.focal >= 0 && (o.focal > 0 || (v.fov_x > 0 && v.fov_x < 3.14159f)), "capture: bad focal length");
  const float f = o.focal > 0 ? o.focal : 0.5f * float(v.width) / std::tan(0.5f * v.fov_x);
  const json lens_keys = o.format == CaptureFormat::Colmap ? json::object() : transforms_lens_keys(o.lens);
  const WarpMap map = make_warp_map(o, f);
  const ScenePoses poses = scene_poses(v);
  std::vector<std::array<float, 16>> all = poses.train;
  all.insert(all.end(), poses.test.begin(), poses.test.end());

  raster::Rasterizer rasterizer(v.device);
  const raster::Gaussians on_device = scene.to(v.device);
  std::vector<std::string> names;
  std::vector<raster::Camera> cameras;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const raster::Camera wide = raster::Camera::from_camera_to_world_opengl(all[i].data(), map.focal, map.focal, map.cx,
                                                                            map.cy, map.width, map.height);
    const raster::ForwardOutput out = rasterizer.forward(on_device.view(), wide);  // black background
    const bool test = i >= poses.train.size();
    const std::size_t index = test ? i - poses.train.size() : i;
    char name[64];
    if (o.format == CaptureFormat::NerfSynthetic) {
      std::snprintf(name, sizeof(name), "%s/r_%zu.png", test ? "test" : "train", index);
    } else {
      std::snprintf(name, sizeof(name), "images/frame_%04zu.png", i);
    }
    names.push_back(name);
    fs::create_directories((fs::path(folder) / name).parent_path());
    io::write_png((fs::path(folder) / name).string(), photograph(out.image.to_vector(), map, o));
    cameras.push_back(raster::Camera::from_camera_to_world_opengl(all[i].data(), f, f, 0.5f * float(v.width),
                                                                  0.5f * float(v.height), v.width, v.height));
  }

  const io::PointCloud points = scene_points(scene, o.points);
  if (o.format == CaptureFormat::Colmap) {
    io::ColmapModel model;
    model.cameras.push_back(colmap_camera_of(o.lens, f, v.width, v.height));
    for (std::size_t i = 0; i < cameras.size(); ++i)
      model.images.push_back(io::colmap_image(cameras[i], std::uint32_t(i + 1), 1, fs::path(names[i]).filename()));
    model.points = points;
    io::write_colmap_model((fs::path(folder) / "sparse" / "0").string(), model, true);
    return;
  }
  auto frames_json = [&](std::size_t begin, std::size_t end) {
    json frames = json::array();
    for (std::size_t i = begin; i < end; ++i) {
      json m = json::array();
      for (int r = 0; r < 4; ++r) m.push_back({all[i][4 * r], all[i][4 * r + 1], all[i][4 * r + 2], all[i][4 * r + 3]});
      frames.push_back({{"file_path", "./" + names[i]}, {"transform_matrix", m}});
    }
    json doc = {{"fl_x", f}, {"fl_y", f}, {"cx", 0.5 * v.width}, {"cy", 0.5 * v.height}, {"w", v.width}, {"h", v.height}};
    doc.update(lens_keys);
    doc["frames"] = frames;
    return doc;
  };
  if (o.format == CaptureFormat::Transforms) {
    write_json((fs::path(folder) / "transforms.json").string(), frames_json(0, all.size()));
  } else {
    write_json((fs::path(folder) / "transforms_train.json").string(), frames_json(0, poses.train.size()));
    if (!poses.test.empty())
      write_json((fs::path(folder) / "transforms_test.json").string(), frames_json(poses.train.size(), all.size()));
  }
  if (points.size() > 0) io::write_points_ply((fs::path(folder) / "points3d.ply").string(), points);
}

}  // namespace tilegrad::training
