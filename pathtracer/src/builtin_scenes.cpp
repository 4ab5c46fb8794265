// The built-in scenes (see scene_io.h): small, self-contained, no data files needed.
#include <algorithm>
#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/scene_io.h"

namespace tilegrad::pathtracer {
namespace {

Vec3<float> v3(float x, float y, float z) { return {{x, y, z}}; }

Sphere sphere(Vec3<float> c, float r, Vec3<float> albedo, Vec3<float> emission) { return {c, r, albedo, emission}; }

Scene emissive(int w, int h) {
  Scene s;
  s.camera = look_at(v3(0, 0, 5), v3(0, 0, 0), v3(0, 1, 0), w, h, 40.0f);
  s.spheres.push_back(sphere(v3(0, 0, 0), 1.0f, v3(0, 0, 0), v3(1.0f, 0.8f, 0.6f)));
  return s;
}

Scene shaded(int w, int h) {
  Scene s;
  s.camera = look_at(v3(0, 1.5f, 6), v3(0, 0.1f, 0), v3(0, 1, 0), w, h, 40.0f);
  s.spheres.push_back(sphere(v3(0, -101, 0), 100.0f, v3(0.5f, 0.5f, 0.5f), v3(0, 0, 0)));      // ground
  s.spheres.push_back(sphere(v3(0, 0, 0), 1.0f, v3(0.8f, 0.3f, 0.2f), v3(0, 0, 0)));           // subject
  s.spheres.push_back(sphere(v3(3, 5, 5), 1.0f, v3(0, 0, 0), v3(40.0f, 38.0f, 34.0f)));        // light
  return s;
}

Scene overlap(int w, int h) {
  Scene s;
  s.camera = look_at(v3(0, 0.5f, 6), v3(0, 0, 0), v3(0, 1, 0), w, h, 40.0f);
  s.spheres.push_back(sphere(v3(-0.45f, 0, 0), 1.0f, v3(0.9f, 0.45f, 0.2f), v3(0, 0, 0)));
  s.spheres.push_back(sphere(v3(0.6f, 0.15f, -0.3f), 0.8f, v3(0.2f, 0.55f, 0.9f), v3(0, 0, 0)));
  s.spheres.push_back(sphere(v3(-3, 4, 7), 1.0f, v3(0, 0, 0), v3(60.0f, 60.0f, 60.0f)));
  return s;
}

// n spheres on a cols x rows grid in the plane z = 0 filling the view, and a light behind the camera.
Scene grid(std::size_t n, int w, int h) {
  TG_CHECK_ARG(n >= 1 && n <= (std::size_t(1) << 20), "builtin grid: the number of spheres must be in 1..2^20 (got ",
               n, ")");
  const float aspect = static_cast<float>(w) / static_cast<float>(h);
  const auto cols = static_cast<std::size_t>(std::max(1.0, std::ceil(std::sqrt(double(n) * aspect))));
  const std::size_t rows = (n + cols - 1) / cols;
  const float spacing = 1.0f, radius = 0.42f * spacing;
  const float grid_w = cols * spacing, grid_h = rows * spacing;
  // Distance at which the grid fills the vertical (or horizontal) field of view of 40 degrees.
  const float half = 0.5f * std::max(grid_h, grid_w / aspect) * 1.05f;
  const float dist = half / std::tan(20.0f * 3.14159265f / 180.0f);
  Scene s;
  s.camera = look_at(v3(0, 0, dist), v3(0, 0, 0), v3(0, 1, 0), w, h, 40.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const float x = (static_cast<float>(i % cols) + 0.5f) * spacing - 0.5f * grid_w;
    const float y = 0.5f * grid_h - (static_cast<float>(i / cols) + 0.5f) * spacing;
    // Varied colours from a cheap integer hash of the index.
    const unsigned hsh = static_cast<unsigned>(i) * 2654435761u;
    const float a = 0.3f + 0.6f * static_cast<float>((hsh >> 8) & 255u) / 255.0f;
    const float b = 0.3f + 0.6f * static_cast<float>((hsh >> 16) & 255u) / 255.0f;
    s.spheres.push_back(sphere(v3(x, y, 0), radius, v3(a, 0.5f * (a + b), b), v3(0, 0, 0)));
  }
  // Behind and above the camera: lights every sphere, never in the image. Its distance to the grid is about
  // 1.6 dist, so emission 2.1 (dist / r)^2 gives shading of about 0.8 x albedo facing it.
  const float lr = 0.1f * dist;
  s.spheres.push_back(sphere(v3(0.3f * dist, 0.5f * dist, 1.5f * dist), lr, v3(0, 0, 0),
                             v3(1, 1, 1) * (2.1f * dist * dist / (lr * lr))));
  return s;
}

}  // namespace

std::vector<std::string> builtin_scene_names() { return {"emissive", "shaded", "overlap", "grid:N"}; }

Scene builtin_scene(const std::string& name, int width, int height) {
  TG_CHECK_ARG(width >= 0 && height >= 0 && (width > 0) == (height > 0), "builtin scene '", name,
               "': give both width and height, or neither");
  const bool is_grid = name.rfind("grid:", 0) == 0;
  const int w = width > 0 ? width : (is_grid ? 1920 : 128), h = height > 0 ? height : (is_grid ? 1080 : 128);
  if (name == "emissive") return emissive(w, h);
  if (name == "shaded") return shaded(w, h);
  if (name == "overlap") return overlap(w, h);
  if (is_grid) {
    const std::string count = name.substr(5);
    std::size_t n = 0, used = 0;
    try {
      n = std::stoull(count, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TG_CHECK_ARG(used == count.size() && used > 0, "builtin scene '", name, "': expected grid:N with a number N");
    return grid(n, w, h);
  }
  throw InvalidArgument("unknown builtin scene '" + name + "' (expected emissive, shaded, overlap or grid:N)");
}

Scene scene_from_spec(const std::string& spec, int width, int height) {
  if (spec.rfind("builtin:", 0) == 0) return builtin_scene(spec.substr(8), width, height);
  Scene s = load_scene(spec);
  if (width > 0 || height > 0) {
    TG_CHECK_ARG(width > 0 && height > 0, spec, ": give both width and height to resize");
    s.camera = resized(s.camera, width, height);
  }
  return s;
}

}  // namespace tilegrad::pathtracer
