// Helpers of mesh_test_util.h.
#include "mesh_test_util.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tilegrad/mesh/generate.h"

namespace tilegrad::test {

std::vector<double> central_jacobian(const std::function<std::vector<double>(const std::vector<double>&)>& g,
                                     std::vector<double> x, double h) {
  const std::size_t n = x.size();
  std::vector<double> j;
  for (std::size_t c = 0; c < n; ++c) {
    const double xc = x[c];
    x[c] = xc + h;
    const auto gp = g(x);
    x[c] = xc - h;
    const auto gm = g(x);
    x[c] = xc;
    j.resize(gp.size() * n);
    for (std::size_t r = 0; r < gp.size(); ++r) j[r * n + c] = (gp[r] - gm[r]) / (2 * h);
  }
  return j;
}

std::vector<double> central_gradient(const std::function<double(const std::vector<double>&)>& f,
                                     std::vector<double> x, double h) {
  return central_jacobian([&](const std::vector<double>& at) { return std::vector<double>{f(at)}; }, std::move(x), h);
}

std::vector<double> dense(const HostCsr<double>& a) {
  std::vector<double> d(a.rows * a.cols, 0.0);
  for (std::size_t r = 0; r < a.rows; ++r)
    for (std::uint32_t k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) d[r * a.cols + a.columns[k]] = a.values[k];
  return d;
}

double max_scaled_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 1.0, worst = 0.0;
  for (double v : b) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::fabs(a[i] - b[i]);
    worst = std::max(worst, std::isnan(d) ? INFINITY : d);
  }
  return a.size() == b.size() ? worst / scale : INFINITY;
}

bool positive_semidefinite(std::vector<double> a, std::size_t n, double shift) {
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] += shift;
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0.0)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  return true;
}

std::vector<double> random_vector(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

io::TriangleMesh bumpy_sphere(int subdivisions, double noise, std::uint64_t seed) {
  io::TriangleMesh m = mesh::icosphere(subdivisions);
  mesh::add_normal_noise(m, noise, seed);
  return m;
}

}  // namespace tilegrad::test
