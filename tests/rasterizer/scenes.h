// Small random scenes and cameras for the rasterizer tests (host data, any scalar type).
#pragma once
#include <cmath>
#include <random>
#include <vector>

#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::test {

template <class T>
struct HostScene {
  std::size_t count = 0;
  int sh_degree = 0;
  std::vector<T> means, log_scales, quats, opacity_logits, sh, colors;
  std::vector<std::vector<T>*> groups() { return {&means, &log_scales, &quats, &opacity_logits, &sh, &colors}; }
};

// Gaussians in a box in front of a camera at the origin looking down +z; sizes chosen so footprints span a
// few to tens of pixels at ~64x48 images; colours positive (no SH clamping).
template <class T>
HostScene<T> random_scene(std::size_t n, int sh_degree, std::uint64_t seed, bool with_colors = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostScene<T> s;
  s.count = n;
  s.sh_degree = sh_degree;
  const int k = raster::sh_coefficients(sh_degree);
  for (std::size_t i = 0; i < n; ++i) {
    const double z = 4.0 + 1.5 * u(rng);
    s.means.insert(s.means.end(), {T(0.9 * u(rng) * z / 3), T(0.7 * u(rng) * z / 3), T(z)});
    for (int a = 0; a < 3; ++a) s.log_scales.push_back(T(std::log(0.12 + 0.1 * (1 + u(rng)))));
    for (int a = 0; a < 4; ++a) s.quats.push_back(T(u(rng) + (a == 0 ? 1.5 : 0.0)));
    s.opacity_logits.push_back(T(0.3 * u(rng)));
    for (int c = 0; c < k * 3; ++c) s.sh.push_back(T(c < 3 ? 1.0 + 0.3 * u(rng) : 0.15 * u(rng)));
    if (with_colors)
      for (int c = 0; c < 3; ++c) s.colors.push_back(T(0.5 + 0.4 * u(rng)));
  }
  return s;
}

inline raster::Camera test_camera(int width, int height, float cx_offset = 0.0f, float cy_offset = 0.0f) {
  raster::Camera c;
  c.width = width;
  c.height = height;
  c.fx = 0.9f * width;
  c.fy = 0.95f * width;
  c.cx = 0.5f * width + cx_offset;
  c.cy = 0.5f * height + cy_offset;
  return c;
}

// A camera looking at the scene box from the side (a rotation about y plus a translation).
inline raster::Camera rotated_camera(int width, int height, float angle) {
  raster::Camera c = test_camera(width, height, 3.0f, -2.0f);
  const float ca = std::cos(angle), sa = std::sin(angle);
  c.rotation = {{{ca, 0, -sa}, {0, 1, 0}, {sa, 0, ca}}};
  // Keep the box centre (0, 0, 4) at the same distance in front of the camera.
  const Vec3<float> centre{{0, 0, 4}};
  const Vec3<float> rc = c.rotation * centre;
  c.translation = {{-rc[0], -rc[1], 4.0f - rc[2]}};
  return c;
}

template <class T>
raster::Gaussians to_gaussians(const HostScene<T>& s, Device device) {
  auto g = raster::Gaussians::allocate(s.count, s.sh_degree, Device::Cpu);
  auto fill = [](Buffer<float>& b, const std::vector<T>& v) {
    std::vector<float> f(v.begin(), v.end());
    b = Buffer<float>::from(f, Device::Cpu);
  };
  fill(g.means, s.means);
  fill(g.log_scales, s.log_scales);
  fill(g.quats, s.quats);
  fill(g.opacity_logits, s.opacity_logits);
  fill(g.sh, s.sh);
  if (!s.colors.empty()) fill(g.colors, s.colors);
  return g.to(device);
}

}  // namespace tilegrad::test

namespace tilegrad::test {

// n Gaussians spread over the view of test_camera(width, height) at depths 2..8, footprints of roughly
// 1..20 pixels, SH coefficients of the given degree; a dense, realistic mix of small and large splats.
inline HostScene<float> dense_scene(std::size_t n, int sh_degree, int width, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), unit(0.0f, 1.0f);
  HostScene<float> s;
  s.count = n;
  s.sh_degree = sh_degree;
  const int k = raster::sh_coefficients(sh_degree);
  const float focal = 0.9f * width;  // test_camera's fx
  for (std::size_t i = 0; i < n; ++i) {
    const float z = 2.0f + 6.0f * unit(rng);
    s.means.insert(s.means.end(), {0.55f * u(rng) * z, 0.45f * u(rng) * z, z});
    const float pixels = std::exp(std::log(1.0f) + unit(rng) * std::log(20.0f));  // 1..20 px, log-uniform
    for (int a = 0; a < 3; ++a) s.log_scales.push_back(std::log(pixels * z / focal * (0.5f + unit(rng))));
    for (int a = 0; a < 4; ++a) s.quats.push_back(u(rng));
    s.quats[4 * i] += 0.1f;  // away from the zero quaternion
    s.opacity_logits.push_back(3.0f * u(rng));
    for (int c = 0; c < k * 3; ++c) s.sh.push_back(c < 3 ? 1.2f * u(rng) : 0.3f * u(rng));
  }
  return s;
}

}  // namespace tilegrad::test
