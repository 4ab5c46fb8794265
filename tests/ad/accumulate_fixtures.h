// Inputs shared by the CPU and CUDA accumulation tests: contributions with a chosen contention pattern,
// their float64 reference sums, the owner-grouped (Owned) layout of the same records, and segments and
// gradients for the overwrite tests.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "tilegrad/ad/accumulator.h"

namespace tilegrad::test {

struct Records {
  std::size_t num_params = 0;
  int width = 1;
  std::vector<std::uint32_t> ids;
  std::vector<float> values;  // [count * width]
  std::size_t count() const { return ids.size(); }
};

// keys distinct ids used (ids spread over num_params); coherent: runs of equal ids (like a tile's pixels
// hitting the same Gaussian), else uniformly random.
inline Records make_records(std::size_t count, std::size_t num_params, std::size_t keys, int width, bool coherent,
                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Records r;
  r.num_params = num_params;
  r.width = width;
  r.ids.resize(count);
  r.values.resize(count * width);
  std::uniform_int_distribution<std::size_t> key(0, keys - 1), run(1, 64);
  const std::size_t stride = std::max<std::size_t>(1, num_params / keys);
  for (std::size_t i = 0; i < count;) {
    const auto id = static_cast<std::uint32_t>((key(rng) * stride) % num_params);
    const std::size_t len = coherent ? run(rng) : 1;
    for (std::size_t j = 0; j < len && i < count; ++j, ++i) r.ids[i] = id;
  }
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  for (auto& v : r.values) v = val(rng);
  return r;
}

// Float64 reference sums and the sum of magnitudes (the scale of float rounding) per (param, component).
struct Reference {
  std::vector<double> sum, magnitude;
};
inline Reference reference_sums(const Records& r) {
  Reference ref;
  ref.sum.assign(r.num_params * r.width, 0.0);
  ref.magnitude.assign(r.num_params * r.width, 0.0);
  for (std::size_t i = 0; i < r.count(); ++i)
    for (int c = 0; c < r.width; ++c) {
      ref.sum[r.ids[i] * r.width + c] += r.values[i * r.width + c];
      ref.magnitude[r.ids[i] * r.width + c] += std::fabs(r.values[i * r.width + c]);
    }
  return ref;
}

// The same records grouped by id (stable), with offsets[num_params + 1].
struct Grouped {
  Records records;
  std::vector<std::uint32_t> offsets;
};
inline Grouped group_by_owner(const Records& r) {
  std::vector<std::uint32_t> order(r.count());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return r.ids[a] < r.ids[b]; });
  Grouped g;
  g.records.num_params = r.num_params;
  g.records.width = r.width;
  g.offsets.assign(r.num_params + 1, 0);
  for (std::uint32_t i : order) {
    g.records.ids.push_back(r.ids[i]);
    g.records.values.insert(g.records.values.end(), r.values.begin() + i * r.width,
                            r.values.begin() + (i + 1) * r.width);
    ++g.offsets[r.ids[i] + 1];
  }
  for (std::size_t p = 0; p < r.num_params; ++p) g.offsets[p + 1] += g.offsets[p];
  return g;
}

// A random permutation of the records (all of them, or only inside each owner segment).
inline Records permute(const Records& r, std::uint64_t seed, const std::vector<std::uint32_t>* segments = nullptr) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> order(r.count());
  std::iota(order.begin(), order.end(), 0u);
  if (segments) {
    for (std::size_t p = 0; p + 1 < segments->size(); ++p)
      std::shuffle(order.begin() + (*segments)[p], order.begin() + (*segments)[p + 1], rng);
  } else {
    std::shuffle(order.begin(), order.end(), rng);
  }
  Records out = r;
  for (std::size_t i = 0; i < r.count(); ++i) {
    out.ids[i] = r.ids[order[i]];
    std::copy(r.values.begin() + order[i] * r.width, r.values.begin() + (order[i] + 1) * r.width,
              out.values.begin() + i * r.width);
  }
  return out;
}

// Worst error relative to the magnitude of what was summed (float summation rounds at that scale).
inline double worst_error(const std::vector<float>& got, const Reference& ref) {
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - ref.sum[i]) / std::max(ref.magnitude[i], 1e-30);
    worst = std::max(worst, std::isfinite(err) ? err : 1e30);
  }
  return worst;
}

// Runs one strategy on `device` and returns the gradient (starting from `grad`, or zeros).
inline std::vector<float> accumulate_records(Accumulation s, const Records& r, const std::vector<std::uint32_t>* offsets,
                                             std::vector<float> grad, Device device,
                                             const AccumulateOptions& options = {}) {
  if (grad.empty()) grad.assign(r.num_params * r.width, 0.0f);
  auto ids = Buffer<std::uint32_t>::from(r.ids, device);
  auto values = Buffer<float>::from(r.values, device);
  auto g = Buffer<float>::from(grad, device);
  Buffer<std::uint32_t> off;
  Contributions in;
  in.ids = ids.view();
  in.values = values.view();
  in.width = r.width;
  if (offsets) {
    off = Buffer<std::uint32_t>::from(*offsets, device);
    in.offsets = off.view();
  }
  Accumulator acc(device);
  acc.accumulate(s, in, g.view(), options);
  return g.to_vector();
}

// Segments for the overwrite tests: special ones first (empty, sums of -0, cancelling pairs, non-finite mixes,
// short and long), then `random_segments` of random lengths (80% 0..32 rows, 18% 33..300, 2% 301..longest), which
// on CUDA take every path: a thread per component, a warp, a block, and (longest past a multi chunk or the 2,048
// rows of the bounded path) several chunks. Every component of a special row holds the pattern's value.
inline Grouped overwrite_segments(std::size_t random_segments, std::uint32_t longest, int width, std::uint64_t seed) {
  TG_CHECK_ARG(longest > 300, "overwrite_segments: longest ", longest, " must exceed 300 rows");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> special = {
      {}, {-0.0f}, {-0.0f, -0.0f}, {0.0f, -0.0f}, {}, {2.5f, -2.5f}, {1e-30f, -1e-30f, 0.0f},
      {nan}, {inf}, {-inf}, {inf, -inf}, {1.0f, nan, 2.0f}, {inf, 3.0f, inf}, {}};
  const auto pattern = [](std::size_t len, float a, float b) {
    std::vector<float> v(len);
    for (std::size_t i = 0; i < len; ++i) v[i] = i % 2 ? b : a;
    return v;
  };
  for (std::size_t len : {40u, 700u, 1900u}) {  // a warp, a block (bounded) or chunks (planned) on CUDA
    special.push_back(pattern(len, -0.0f, -0.0f));
    special.push_back(pattern(len, 0.75f, -0.75f));
    special.push_back(pattern(len, 1.0f, inf));
    special.push_back(pattern(len, -inf, inf));
    special.push_back(pattern(len, nan, 4.0f));
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> pick(0, 99), tiny(0, 32), middle(33, 300), longer(301, longest);
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  std::vector<std::uint32_t> lengths;
  for (const auto& seg : special) lengths.push_back(std::uint32_t(seg.size()));
  for (std::size_t p = 0; p < random_segments; ++p) {
    const std::uint32_t k = pick(rng);
    lengths.push_back(k < 80 ? tiny(rng) : k < 98 ? middle(rng) : longer(rng));
  }
  lengths.push_back(longest);
  lengths.push_back(0);  // an empty last segment
  Grouped g;
  g.records.num_params = lengths.size();
  g.records.width = width;
  g.offsets = {0};
  for (std::size_t p = 0; p < lengths.size(); ++p) {
    g.offsets.push_back(g.offsets.back() + lengths[p]);
    for (std::uint32_t i = 0; i < lengths[p]; ++i) {
      g.records.ids.push_back(std::uint32_t(p));
      for (int c = 0; c < width; ++c) g.records.values.push_back(p < special.size() ? special[p][i] : val(rng));
    }
  }
  return g;
}

// What overwrite must not read: NaN, infinities, -0 and random values.
inline std::vector<float> garbage(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> val(-1e3f, 1e3f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -0.0f,
                            -std::numeric_limits<float>::infinity()};
  std::vector<float> g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = i % 3 == 0 ? specials[(i / 3) % 4] : val(rng);
  return g;
}

}  // namespace tilegrad::test
