// Initial Gaussians from points: nearest-neighbour scales on a uniform grid, SH DC from colours.
#include "tilegrad/training/initialize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/element/sh.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::training {

namespace {

// Points bucketed into cubic cells; cells are searched in growing shells around a query point.
class PointGrid {
 public:
  PointGrid(const std::vector<float>& p, std::size_t n) : m_p(p) {
    for (int a = 0; a < 3; ++a) {
      m_lo[a] = std::numeric_limits<float>::max();
      float hi = -std::numeric_limits<float>::max();
      for (std::size_t i = 0; i < n; ++i) {
        m_lo[a] = std::min(m_lo[a], p[3 * i + a]);
        hi = std::max(hi, p[3 * i + a]);
      }
      m_extent[a] = std::max(hi - m_lo[a], 1e-12f);
    }
    // About two points per cell.
    const double volume = double(m_extent[0]) * m_extent[1] * m_extent[2];
    m_cell = float(std::cbrt(std::max(volume, 1e-30) * 2.0 / double(n)));
    for (int a = 0; a < 3; ++a) {
      m_cell = std::max(m_cell, m_extent[a] / 1024.0f);  // bounds the cell count for flat or linear clouds
    }
    for (int a = 0; a < 3; ++a) m_dims[a] = std::max(1, int(std::ceil(m_extent[a] / m_cell)));
    m_start.assign(cells() + 1, 0);
    std::vector<std::size_t> cell_of(n);
    for (std::size_t i = 0; i < n; ++i) {
      cell_of[i] = cell_index(coord(i, 0), coord(i, 1), coord(i, 2));
      ++m_start[cell_of[i] + 1];
    }
    for (std::size_t c = 0; c < cells(); ++c) m_start[c + 1] += m_start[c];
    m_items.resize(n);
    std::vector<std::size_t> fill(m_start.begin(), m_start.end() - 1);
    for (std::size_t i = 0; i < n; ++i) m_items[fill[cell_of[i]]++] = static_cast<std::uint32_t>(i);
  }

  // Mean of the k smallest squared distances from point q to other points.
  double mean_sq_distance(std::size_t q, int k) const {
    std::array<double, 16> best;
    best.fill(std::numeric_limits<double>::infinity());
    const int c[3] = {coord(q, 0), coord(q, 1), coord(q, 2)};
    const int max_shell = std::max(m_dims[0], std::max(m_dims[1], m_dims[2]));
    for (int shell = 0; shell <= max_shell; ++shell) {
      // Every point not yet visited is at least (shell - 1) cells away in some axis.
      const double reach = double(shell - 1) * m_cell;
      if (shell > 0 && reach > 0 && reach * reach > best[std::size_t(k - 1)]) break;
      visit_shell(c, shell, [&](std::uint32_t j) {
        if (j == q) return;
        double d2 = 0;
        for (int a = 0; a < 3; ++a) d2 += sqr(double(m_p[3 * j + a]) - m_p[3 * q + a]);
        if (d2 >= best[std::size_t(k - 1)]) return;
        int pos = k - 1;
        while (pos > 0 && best[std::size_t(pos - 1)] > d2) {
          best[std::size_t(pos)] = best[std::size_t(pos - 1)];
          --pos;
        }
        best[std::size_t(pos)] = d2;
      });
    }
    double sum = 0;
    int found = 0;
    for (int i = 0; i < k; ++i)
      if (std::isfinite(best[std::size_t(i)])) sum += best[std::size_t(i)], ++found;
    return found > 0 ? sum / found : 0.0;
  }

 private:
  std::size_t cells() const { return std::size_t(m_dims[0]) * m_dims[1] * m_dims[2]; }
  int coord(std::size_t i, int a) const {
    return std::clamp(int((m_p[3 * i + a] - m_lo[a]) / m_cell), 0, m_dims[a] - 1);
  }
  std::size_t cell_index(int x, int y, int z) const { return (std::size_t(z) * m_dims[1] + y) * m_dims[0] + x; }

  // Calls f for the points of the cells at Chebyshev distance `shell` from cell c.
  template <class F>
  void visit_shell(const int c[3], int shell, F&& f) const {
    for (int z = c[2] - shell; z <= c[2] + shell; ++z) {
      if (z < 0 || z >= m_dims[2]) continue;
      for (int y = c[1] - shell; y <= c[1] + shell; ++y) {
        if (y < 0 || y >= m_dims[1]) continue;
        const bool face = z == c[2] - shell || z == c[2] + shell || y == c[1] - shell || y == c[1] + shell;
        for (int x = c[0] - shell; x <= c[0] + shell; x += (face || shell == 0) ? 1 : 2 * shell) {
          if (x < 0 || x >= m_dims[0]) continue;
          const std::size_t cell = cell_index(x, y, z);
          for (std::size_t s = m_start[cell]; s < m_start[cell + 1]; ++s) f(m_items[s]);
        }
      }
    }
  }

  const std::vector<float>& m_p;
  float m_lo[3], m_extent[3], m_cell = 1;
  int m_dims[3] = {1, 1, 1};
  std::vector<std::size_t> m_start;
  std::vector<std::uint32_t> m_items;
};

}  // namespace

std::vector<float> nearest_neighbour_scales(const std::vector<float>& positions, int neighbours) {
  TG_CHECK_ARG(positions.size() % 3 == 0, "positions must be [N, 3]");
  TG_CHECK_ARG(neighbours >= 1 && neighbours <= 16, "neighbours must be 1..16");
  const std::size_t n = positions.size() / 3;
  std::vector<float> scales(n, 0.0f);
  if (n == 0) return scales;
  for (float x : positions) TG_CHECK_ARG(std::isfinite(x), "positions must be finite");
  const PointGrid grid(positions, n);
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    // A lone point has no neighbours: it gets the floor scale.
    const double d2 = n > 1 ? grid.mean_sq_distance(std::size_t(i), std::min<int>(neighbours, int(n - 1))) : 0.0;
    scales[std::size_t(i)] = float(std::sqrt(std::max(d2, 1e-7)));
  }
  return scales;
}

raster::Gaussians gaussians_from_points(const io::PointCloud& points, const InitOptions& o) {
  TG_CHECK_ARG(o.opacity > 0 && o.opacity < 1, "initial opacity must be in (0, 1), got ", o.opacity);
  const std::size_t n = points.size();
  TG_CHECK_ARG(n > 0, "no points to initialise Gaussians from");
  const std::vector<float> scales = nearest_neighbour_scales(points.positions);
  raster::Gaussians g = raster::Gaussians::allocate(n, o.sh_degree, Device::Cpu);
  const int k = raster::sh_coefficients(o.sh_degree);
  const float logit = std::log(o.opacity / (1.0f - o.opacity));
  const float c0 = 0.28209479177387814f;  // Y_0: colour = c0 * dc + 0.5 (sh.h)
  std::fill_n(g.sh.data(), g.sh.size(), 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      g.means.data()[3 * i + a] = points.positions[3 * i + a];
      g.log_scales.data()[3 * i + a] = std::log(scales[i]);
      const float rgb = points.has_colors() ? float(points.colors[3 * i + a]) / 255.0f : 0.5f;
      g.sh.data()[i * std::size_t(k) * 3 + a] = (rgb - 0.5f) / c0;
    }
    const float quat[4] = {1, 0, 0, 0};
    std::copy(quat, quat + 4, g.quats.data() + 4 * i);
    g.opacity_logits.data()[i] = logit;
  }
  return g;
}

io::PointCloud random_points(std::size_t count, const float center[3], float half_size, std::uint64_t seed) {
  TG_CHECK_ARG(half_size > 0 && std::isfinite(half_size), "random points: the box half size must be positive");
  io::PointCloud pc;
  pc.positions.resize(count * 3);
  pc.colors.resize(count * 3);
  for (std::size_t i = 0; i < count; ++i) {
    for (int a = 0; a < 3; ++a) {
      const std::uint64_t c = 3 * i + std::uint64_t(a);
      pc.positions[3 * i + a] =
          center[a] + half_size * (2.0f * random_uniform(seed, RandomStream::InitialPoints, 2 * c) - 1.0f);
      // Grey with a little noise (the colour bytes are 127 or 128).
      pc.colors[3 * i + a] = std::uint8_t(127 + (random_bits(seed, RandomStream::InitialPoints, 2 * c + 1) & 1));
    }
  }
  return pc;
}

}  // namespace tilegrad::training
