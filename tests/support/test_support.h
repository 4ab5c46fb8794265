// Shared helpers for the test suites: CUDA skipping, random inputs, bitwise and tolerant comparisons.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tilegrad/core/device.h"

// Skips the current test (not a failure) when no CUDA device can be used, saying why.
#define TG_REQUIRE_CUDA()                                                                 \
  do {                                                                                    \
    if (!::tilegrad::cuda_available())                                                    \
      GTEST_SKIP() << "needs a CUDA device: " << ::tilegrad::cuda_device_description();   \
  } while (0)

namespace tilegrad::test {

// Path of the shared real-data folder (../shared/data from the repository), or "" when absent.
std::string shared_data_dir();

// Skips when the shared data folder (or a file inside it) is absent.
#define TG_REQUIRE_SHARED_DATA(relative)                                                          \
  do {                                                                                            \
    if (::tilegrad::test::shared_data_dir().empty() ||                                            \
        !::tilegrad::test::path_exists(::tilegrad::test::shared_data_dir() + "/" + (relative)))   \
      GTEST_SKIP() << "shared dataset '" << (relative) << "' not found (set TILEGRAD_SHARED_DATA)"; \
  } while (0)
bool path_exists(const std::string& path);
// A file's whole content ("" when it cannot be read).
std::string file_bytes(const std::string& path);

// Problem sizes for GPU tests: divided by 16 under compute-sanitizer (TILEGRAD_TEST_SCALE=small).
std::size_t scaled(std::size_t n);

inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// A fresh folder under the system temp folder, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return m_path; }
  std::string file(const std::string& relative) const { return m_path + "/" + relative; }
  // Writes bytes to a file (creating parent folders) and returns its path.
  std::string write(const std::string& relative, std::string_view bytes) const;

 private:
  std::string m_path;
};

inline bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// max_i |a_i - b_i|; infinite when the sizes differ.
inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::fmax(worst, std::fabs(double(a[i]) - double(b[i])));
  return worst;
}

// Fraction of entries whose difference exceeds tol.
inline double fraction_above(const std::vector<float>& a, const std::vector<float>& b, double tol) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) n += std::fabs(double(a[i]) - double(b[i])) > tol;
  return a.empty() ? 0.0 : double(n) / double(a.size());
}

// How two vectors agree as a whole: |a - b| / |b| and the cosine of their angle (b: the reference).
struct Agreement {
  double relative_l2, cosine;
};
inline Agreement agreement(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0, diff = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  }
  if (a.size() != b.size()) return {INFINITY, 0.0};
  if (nb == 0) return {na == 0 ? 0.0 : INFINITY, na == 0 ? 1.0 : 0.0};
  return {std::sqrt(diff / nb), dot / std::sqrt(na * nb)};
}

// max_i |a_i - b_i| / max(|b_i|, floor): relative error that tolerates tiny reference entries.
template <class A, class B>
double max_relative_error(const std::vector<A>& a, const std::vector<B>& b, double floor = 1e-6) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double ref = static_cast<double>(b[i]);
    const double err = std::fabs(static_cast<double>(a[i]) - ref) / std::fmax(std::fabs(ref), floor);
    worst = std::fmax(worst, std::isnan(err) ? INFINITY : err);
  }
  return worst;
}

}  // namespace tilegrad::test
