// The default scene's shapes (Gaussians on surfaces, oriented flat against them) and its multi-view renders.
#include "tilegrad/training/default_scene.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tilegrad/core/error.h"
#include "tilegrad/io/image.h"
#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::training {

namespace {

constexpr float kPi = 3.14159265358979323846f;
constexpr float kShC0 = 0.28209479177387814f;  // colour = kShC0 * dc + 0.5 (rasterizer/element/sh.h)

struct Builder {
  std::vector<float> means, log_scales, quats, logits, sh;  // sh: [N, 4, 3] (degree 1)
  std::uint64_t seed;
  std::uint64_t counter = 0;

  float jitter(float amount) {
    return amount * (2.0f * random_uniform(seed, RandomStream::SceneContent, counter++) - 1.0f);
  }

  // A Gaussian flattened against the surface with normal n: scales (s, s, s * flatness) in its tangent frame.
  void add(const Vec3<float>& p, const Vec3<float>& n, float s, float flatness, const Vec3<float>& rgb,
           const Vec3<float>& sheen = Vec3<float>::zero(), float opacity = 0.95f) {
    for (int a = 0; a < 3; ++a) means.push_back(p[a]);
    log_scales.insert(log_scales.end(), {std::log(s), std::log(s), std::log(s * flatness)});
    // The rotation taking +z to n: axis z x n, half-angle form q = (1 + z.n, z x n) normalised.
    Vec4<float> q{{1.0f + n[2], -n[1], n[0], 0.0f}};
    if (q[0] < 1e-4f) q = {{0.0f, 1.0f, 0.0f, 0.0f}};  // n = -z: half a turn about x
    const float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int a = 0; a < 4; ++a) quats.push_back(q[a] / len);
    logits.push_back(std::log(opacity / (1.0f - opacity)));
    for (int c = 0; c < 3; ++c) sh.push_back((rgb[c] - 0.5f) / kShC0);
    // Degree-1 bands (y, z, x directions): a tint that follows the viewing direction.
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) sh.push_back(sheen[c] * (k == 2 ? 1.0f : 0.4f));
  }
};

Vec3<float> v3(float x, float y, float z) { return {{x, y, z}}; }

// A disc of radius 0.9 below the objects, in a two-colour checker pattern.
void add_plate(Builder& b) {
  const float z = -0.35f, spacing = 0.055f;
  for (float y = -0.9f; y <= 0.9f; y += spacing) {
    for (float x = -0.9f; x <= 0.9f; x += spacing) {
      if (x * x + y * y > 0.81f) continue;
      const bool dark = (int(std::floor(x / 0.3f)) + int(std::floor(y / 0.3f))) % 2 != 0;
      const Vec3<float> rgb = dark ? v3(0.12f, 0.45f, 0.5f) : v3(0.93f, 0.88f, 0.75f);
      b.add(v3(x + b.jitter(0.004f), y + b.jitter(0.004f), z), v3(0, 0, 1), 0.036f, 0.15f, rgb);
    }
  }
}

// A sphere with red and white latitude stripes and a bluish sheen.
void add_sphere(Builder& b) {
  const Vec3<float> c = v3(-0.3f, -0.25f, 0.0f);
  const float r = 0.3f;
  const int count = 700;
  for (int i = 0; i < count; ++i) {  // Fibonacci points: even coverage
    const float zc = 1.0f - 2.0f * (i + 0.5f) / count, ring = std::sqrt(1.0f - zc * zc);
    const float phi = float(i) * 2.39996323f;
    const Vec3<float> n = v3(ring * std::cos(phi), ring * std::sin(phi), zc);
    const bool stripe = int(std::floor((zc + 1.0f) * 4.0f)) % 2 == 0;
    b.add(c + n * r, n, 0.03f, 0.2f, stripe ? v3(0.85f, 0.12f, 0.1f) : v3(0.95f, 0.95f, 0.92f),
          v3(-0.05f, 0.0f, 0.12f));
  }
}

// A tilted torus coloured by the angle around its ring.
void add_torus(Builder& b) {
  const Vec3<float> c = v3(0.38f, 0.22f, -0.05f);
  const float major = 0.32f, minor = 0.085f, tilt = 0.6f;
  const int ring = 72, tube = 14;
  for (int i = 0; i < ring; ++i) {
    const float u = 2.0f * kPi * (i + 0.5f) / ring;
    const Vec3<float> rgb =
        v3(0.5f + 0.45f * std::cos(u), 0.5f + 0.45f * std::cos(u - 2.094f), 0.5f + 0.45f * std::cos(u + 2.094f));
    for (int j = 0; j < tube; ++j) {
      const float v = 2.0f * kPi * (j + 0.5f * (i % 2)) / tube;
      // Untilted: ring in the xy plane; then a rotation by `tilt` about the x axis.
      const Vec3<float> n0 = v3(std::cos(u) * std::cos(v), std::sin(u) * std::cos(v), std::sin(v));
      const Vec3<float> p0 = v3(major * std::cos(u), major * std::sin(u), 0.0f) + n0 * minor;
      auto tilt_x = [&](const Vec3<float>& q) {
        return v3(q[0], std::cos(tilt) * q[1] - std::sin(tilt) * q[2], std::sin(tilt) * q[1] + std::cos(tilt) * q[2]);
      };
      b.add(c + tilt_x(p0), tilt_x(n0), 0.022f, 0.3f, rgb, v3(0.08f, 0.08f, 0.08f));
    }
  }
}

// A box with one colour per face.
void add_box(Builder& b) {
  const Vec3<float> c = v3(-0.38f, 0.42f, -0.2f);
  const float h = 0.15f;
  const Vec3<float> colours[6] = {v3(0.95f, 0.75f, 0.1f), v3(0.2f, 0.6f, 0.25f),  v3(0.25f, 0.35f, 0.85f),
                                  v3(0.9f, 0.45f, 0.65f), v3(0.55f, 0.3f, 0.15f), v3(0.6f, 0.85f, 0.9f)};
  const int grid = 8;
  for (int face = 0; face < 6; ++face) {
    const int axis = face / 2;
    const float sign = face % 2 == 0 ? 1.0f : -1.0f;
    Vec3<float> n = v3(0, 0, 0);
    n[axis] = sign;
    for (int i = 0; i < grid; ++i) {
      for (int j = 0; j < grid; ++j) {
        Vec3<float> p = c;
        p[axis] += sign * h;
        p[(axis + 1) % 3] += h * (2.0f * (i + 0.5f) / grid - 1.0f);
        p[(axis + 2) % 3] += h * (2.0f * (j + 0.5f) / grid - 1.0f);
        b.add(p, n, 0.024f, 0.2f, colours[face]);
      }
    }
  }
}

// Beads on a rising spiral, yellow at the bottom to magenta at the top.
void add_spiral(Builder& b) {
  const Vec3<float> c = v3(0.35f, -0.4f, -0.3f);
  const int count = 140;
  for (int i = 0; i < count; ++i) {
    const float t = float(i) / (count - 1);
    const float a = 4.0f * 2.0f * kPi * t;
    const Vec3<float> p = c + v3(0.16f * std::cos(a), 0.16f * std::sin(a), 0.8f * t);
    b.add(p, v3(0, 0, 1), 0.022f, 1.0f, v3(1.0f, 0.9f - 0.8f * t, 0.15f + 0.75f * t), v3(0, 0, 0), 0.9f);
  }
}

// Camera-to-world (OpenGL axes, row-major 4x4) of a camera at `eye` looking at the origin with +z up.
std::array<float, 16> look_at_origin(const Vec3<float>& eye) {
  const Vec3<float> f = (Vec3<float>::zero() - eye) / norm(eye);
  Vec3<float> r = cross(f, v3(0, 0, 1));
  r = r / norm(r);
  const Vec3<float> u = cross(r, f);
  return {r[0], u[0], -f[0], eye[0], r[1], u[1], -f[1], eye[1], r[2], u[2], -f[2], eye[2], 0, 0, 0, 1};
}

Vec3<float> on_sphere(float distance, float azimuth, float elevation) {
  return v3(distance * std::cos(elevation) * std::cos(azimuth), distance * std::cos(elevation) * std::sin(azimuth),
            distance * std::sin(elevation));
}

}  // namespace

void write_dataset_split(const std::string& folder, const std::string& split,
                         const std::vector<std::array<float, 16>>& poses, const raster::Gaussians& scene,
                         const SceneViewOptions& o) {
  TG_CHECK_ARG(o.width > 0 && o.height > 0, "scene views: image size must be positive");
  TG_CHECK_ARG(scene.device() == o.device, "scene views: the scene is on ", to_string(scene.device()),
               ", rendering on ", to_string(o.device));
  raster::Rasterizer rasterizer(o.device);
  const float focal = 0.5f * float(o.width) / std::tan(0.5f * o.fov_x);
  std::filesystem::create_directories(folder + "/" + split);
  const auto name = [&](std::size_t i) { return split + "/r_" + std::to_string(i); };
  // Views are rendered one after the other, a chunk at a time, and the chunk's PNGs are then encoded by the CPU
  // threads together (encoding, not rendering, is the slow part at large sizes); the first error is rethrown.
  constexpr std::size_t kChunk = 16;
  for (std::size_t begin = 0; begin < poses.size(); begin += kChunk) {
    const std::size_t end = std::min(poses.size(), begin + kChunk);
    std::vector<std::vector<float>> rgb(end - begin), alpha(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      const raster::Camera cam = raster::Camera::from_camera_to_world_opengl(
          poses[i].data(), focal, focal, 0.5f * o.width, 0.5f * o.height, o.width, o.height);
      const raster::ForwardOutput out = rasterizer.forward(scene.view(), cam);  // black background: premultiplied
      rgb[i - begin] = out.image.to_vector();
      alpha[i - begin] = out.alpha.to_vector();
    }
    const auto n = static_cast<std::ptrdiff_t>(end - begin);
    std::vector<std::exception_ptr> errors(end - begin);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t j = 0; j < n; ++j) {
      try {
        const std::vector<float>& c = rgb[std::size_t(j)];
        const std::vector<float>& a = alpha[std::size_t(j)];
        io::Image img(o.width, o.height, 4);
        for (std::size_t p = 0; p < a.size(); ++p) {
          for (int k = 0; k < 3; ++k) img.pixels[4 * p + k] = a[p] > 0 ? std::min(c[3 * p + k] / a[p], 1.0f) : 0.0f;
          img.pixels[4 * p + 3] = a[p];
        }
        io::write_png(folder + "/" + name(begin + std::size_t(j)) + ".png", img);
      } catch (...) {
        errors[std::size_t(j)] = std::current_exception();
      }
    }
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }
  nlohmann::json frames = nlohmann::json::array();
  for (std::size_t i = 0; i < poses.size(); ++i) {
    nlohmann::json matrix = nlohmann::json::array();
    for (int r = 0; r < 4; ++r)
      matrix.push_back({poses[i][4 * r], poses[i][4 * r + 1], poses[i][4 * r + 2], poses[i][4 * r + 3]});
    frames.push_back({{"file_path", "./" + name(i)}, {"rotation", 0.0}, {"transform_matrix", matrix}});
  }
  const nlohmann::json doc = {{"camera_angle_x", o.fov_x}, {"frames", frames}};
  std::ofstream f(folder + "/transforms_" + split + ".json");
  f << doc.dump(2) << "\n";
  if (!f) throw IoError(folder + "/transforms_" + split + ".json: cannot write");
}

raster::Gaussians make_default_scene(std::uint64_t seed) {
  Builder b;
  b.seed = seed;
  add_plate(b);
  add_sphere(b);
  add_torus(b);
  add_box(b);
  add_spiral(b);
  const std::size_t n = b.logits.size();
  raster::Gaussians g = raster::Gaussians::allocate(n, 1, Device::Cpu);
  g.means = Buffer<float>::from(b.means, Device::Cpu);
  g.log_scales = Buffer<float>::from(b.log_scales, Device::Cpu);
  g.quats = Buffer<float>::from(b.quats, Device::Cpu);
  g.opacity_logits = Buffer<float>::from(b.logits, Device::Cpu);
  g.sh = Buffer<float>::from(b.sh, Device::Cpu);
  return g;
}

ScenePoses scene_poses(const SceneViewOptions& o) {
  ScenePoses p;
  // Train cameras: a Fibonacci spiral over elevations 10..80 degrees, turned by a seeded azimuth.
  const float turn = 2.0f * kPi * random_uniform(o.seed, RandomStream::SceneContent, ~0ull);
  for (int i = 0; i < o.train_views; ++i) {
    const float s = (i + 0.5f) / o.train_views;
    const float elevation =
        std::asin(std::sin(10.0f * kPi / 180) + s * (std::sin(80.0f * kPi / 180) - std::sin(10.0f * kPi / 180)));
    p.train.push_back(look_at_origin(on_sphere(o.camera_distance, turn + float(i) * 2.39996323f, elevation)));
  }
  // Test cameras: a ring 30 degrees up, at azimuths no train camera shares (novel views).
  for (int i = 0; i < o.test_views; ++i)
    p.test.push_back(
        look_at_origin(on_sphere(o.camera_distance, 2.0f * kPi * (i + 0.5f) / o.test_views, 30.0f * kPi / 180)));
  return p;
}

void write_synthetic_dataset(const std::string& folder, const raster::Gaussians& scene, const SceneViewOptions& o) {
  TG_CHECK_ARG(o.width > 0 && o.height > 0, "scene views: image size must be positive");
  TG_CHECK_ARG(o.train_views >= 1 && o.test_views >= 0, "scene views: need at least one train view");
  TG_CHECK_ARG(o.camera_distance > 0 && o.fov_x > 0 && o.fov_x < kPi, "scene views: bad camera distance or fov");
  std::filesystem::create_directories(folder);
  const raster::Gaussians on_device = scene.to(o.device);
  const ScenePoses poses = scene_poses(o);
  write_dataset_split(folder, "train", poses.train, on_device, o);
  if (!poses.test.empty()) write_dataset_split(folder, "test", poses.test, on_device, o);
}

}  // namespace tilegrad::training
