// Construction of the garden grid workload.
#include "tilegrad/profiling/garden_grid.h"

#include <cmath>
#include <vector>

#include "tilegrad/core/error.h"
#include "tilegrad/io/transforms.h"

namespace tilegrad::profiling {
namespace {

// Counter-based random numbers: value i of stream s depends only on (seed, s, i).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  return double(mix(mix(seed * 0x100000001B3ull + stream) ^ i) >> 11) * 0x1.0p-53;
}
double normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {  // Box-Muller
  const double u1 = uniform(seed, stream, 2 * i) + 1e-300, u2 = uniform(seed, stream, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

enum Stream : std::uint64_t { kScale = 1, kQuat, kOpacity, kSh };

}  // namespace

raster::Gaussians make_garden_grid(const io::PointCloud& points, const GardenGridOptions& o) {
  TG_CHECK_ARG(o.grid >= 1 && o.grid % 2 == 1, "garden grid: G must be odd and positive, got ", o.grid);
  TG_CHECK_ARG(o.sh_degree >= 0 && o.sh_degree <= raster::kMaxShDegree, "garden grid: SH degree must be 0..3");
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool inside = true;
    for (int c = 0; c < 3; ++c) inside = inside && std::fabs(points.positions[3 * i + c]) <= 2.0f;
    if (inside) kept.push_back(i);
  }
  const std::size_t base = kept.size(), tiles = std::size_t(o.grid) * o.grid, n = base * tiles;
  const int k = raster::sh_coefficients(o.sh_degree);
  auto g = raster::Gaussians::allocate(n, o.precomputed_colors ? 0 : o.sh_degree, Device::Cpu);
  if (o.precomputed_colors) {
    g.sh = Buffer<float>();
    g.colors = Buffer<float>(n * 3, Device::Cpu);
  }
  const int half = (o.grid - 1) / 2;
  const auto total = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t gi = 0; gi < total; ++gi) {
    const auto i = static_cast<std::size_t>(gi);
    const std::size_t p = kept[i % base], t = i / base;
    const float dx = 4.0f * (int(t % o.grid) - half), dy = 4.0f * (int(t / o.grid) - half);
    g.means.data()[3 * i] = points.positions[3 * p] + dx;
    g.means.data()[3 * i + 1] = points.positions[3 * p + 1] + dy;
    g.means.data()[3 * i + 2] = points.positions[3 * p + 2];
    for (int c = 0; c < 3; ++c)
      g.log_scales.data()[3 * i + c] = float(std::log(1e-4 + (0.02 - 1e-4) * uniform(o.seed, kScale, 3 * i + c)));
    double q[4], norm2 = 0;
    for (int c = 0; c < 4; ++c) {
      q[c] = normal(o.seed, kQuat, 4 * i + c);
      norm2 += q[c] * q[c];
    }
    for (int c = 0; c < 4; ++c) g.quats.data()[4 * i + c] = float(q[c] / std::sqrt(norm2));
    const double opacity = 0.01 + 0.98 * uniform(o.seed, kOpacity, i);
    g.opacity_logits.data()[i] = float(std::log(opacity / (1 - opacity)));
    const float rgb[3] = {points.has_colors() ? points.colors[3 * p] / 255.0f : 0.5f,
                          points.has_colors() ? points.colors[3 * p + 1] / 255.0f : 0.5f,
                          points.has_colors() ? points.colors[3 * p + 2] / 255.0f : 0.5f};
    if (o.precomputed_colors) {
      for (int c = 0; c < 3; ++c) g.colors.data()[3 * i + c] = rgb[c];
    } else {
      float* sh = g.sh.data() + i * k * 3;
      for (int c = 0; c < 3; ++c) sh[c] = (rgb[c] - 0.5f) / 0.28209479f;
      for (int j = 3; j < k * 3; ++j) sh[j] = float(0.05 * normal(o.seed, kSh, i * 48 + j));
    }
  }
  return g;
}

raster::Camera load_benchmark_camera(const std::string& transforms_path, int frame) {
  io::FrameOptions options;
  options.require_images = false;
  const auto frames = io::load_transforms(transforms_path, options);
  TG_CHECK_ARG(frame >= 0 && std::size_t(frame) < frames.size(), transforms_path, ": no frame ", frame, " (",
               frames.size(), " frames)");
  return frames[frame].camera;
}

}  // namespace tilegrad::profiling
