// Internal: the per-element work of distributed training as flat argument structs and TG_HD bodies, run by CPU
// loops (kernels.cpp) and CUDA kernels (cuda/kernels.cu), and the entry points that dispatch on the device.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tilegrad/core/device.h"
#include "tilegrad/distributed/element/exact_combine.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/tiles.h"
#include "tilegrad/training/element/densify.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::distributed::detail {

TG_HD TG_INLINE Vec3<float> load3(const float* p, std::size_t i) { return {{p[3 * i], p[3 * i + 1], p[3 * i + 2]}}; }
TG_HD TG_INLINE Vec4<float> load4(const float* p, std::size_t i) {
  return {{p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]}};
}

// ---- exact combination: element e of the concatenated segments ----
constexpr int kMaxSegments = 16;
struct ExactArgs {
  int segments;
  float* values[kMaxSegments];
  std::size_t begin[kMaxSegments + 1];  // prefix of the segment sizes
  float scale[kMaxSegments];
  std::size_t n;  // begin[segments]
  std::uint8_t* codes;
  long long* ints;
  std::uint32_t ranks;
};

TG_HD TG_INLINE float& exact_value(const ExactArgs& a, std::size_t e, int& s) {
  s = 0;
  while (e >= a.begin[s + 1]) ++s;
  return a.values[s][e - a.begin[s]];
}
TG_HD TG_INLINE void exact_codes_element(const ExactArgs& a, std::size_t e) {
  int s;
  a.codes[e] = exponent_code(exact_value(a, e, s));
}
TG_HD TG_INLINE void exact_quantize_element(const ExactArgs& a, std::size_t e) {
  int s;
  a.ints[e] = rank_quantize(exact_value(a, e, s), a.codes[e], a.ranks);
}
TG_HD TG_INLINE void exact_dequantize_element(const ExactArgs& a, std::size_t e) {
  int s;
  float& x = exact_value(a, e, s);
  x = rank_dequantize(a.ints[e], a.codes[e], a.ranks, a.scale[s]);
}

// ---- per-Gaussian footprint of a view: tile rectangle, and the tile-work difference array ----
struct GaussianPointers {
  const float *means, *log_scales, *quats, *logits;
};

struct ViewStatsArgs {
  std::size_t n;
  GaussianPointers g;
  const float* mean2d_grad;  // [N, 2] pixels
  raster::ProjectionCamera cam;
  float blur, extent_sigmas, min_alpha;
  bool antialiased;
  float *norm, *count, *radius;  // this view's statistics, [N] each
};

// One view's density statistics (training::accumulate_density_stats writes the same values into its sums).
TG_HD TG_INLINE void view_stats_element(const ViewStatsArgs& a, std::size_t i) {
  float radius = 0.0f;
  const bool rendered = training::rendered_footprint(load3(a.g.means, i), load3(a.g.log_scales, i),
                                                     load4(a.g.quats, i), a.g.logits[i], a.cam, a.blur,
                                                     a.antialiased, a.extent_sigmas, a.min_alpha, radius);
  a.norm[i] = rendered ? training::ndc_gradient_norm(a.mean2d_grad[2 * i], a.mean2d_grad[2 * i + 1], a.cam.width,
                                                     a.cam.height)
                       : 0.0f;
  a.count[i] = rendered ? 1.0f : 0.0f;
  a.radius[i] = rendered ? radius : 0.0f;
}

struct AddStatsArgs {
  std::size_t n;
  const float *norm, *count, *radius;
  float *grad_accum, *view_count, *max_radius;
};

TG_HD TG_INLINE void add_stats_element(const AddStatsArgs& a, std::size_t i) {
  a.grad_accum[i] += a.norm[i];
  a.view_count[i] += a.count[i];
  a.max_radius[i] = max(a.max_radius[i], a.radius[i]);
}

struct RectArgs {
  std::size_t n;
  GaussianPointers g;
  raster::ProjectionCamera cam;
  float blur, extent_sigmas, min_alpha, margin;
  bool antialiased;
  int* rects;  // [N, 4]: x0, y0, x1, y1 in tiles (empty: 0, 0, 0, 0)
  int* diff;   // [(tiles_y + 1), (tiles_x + 1)] difference array of instances per tile; null: not counted
  int tiles_x;
};

TG_HD TG_INLINE void atomic_add(int* p, int v) {
#ifdef __CUDA_ARCH__
  atomicAdd(p, v);
#else
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

// Integer additions commute, so the counts are exact whatever the order of the atomics.
TG_HD TG_INLINE void rect_element(const RectArgs& a, std::size_t i) {
  float radius = 0.0f;
  const raster::TileRect r = training::rendered_tiles(load3(a.g.means, i), load3(a.g.log_scales, i),
                                                      load4(a.g.quats, i), a.g.logits[i], a.cam, a.blur,
                                                      a.antialiased, a.extent_sigmas, a.min_alpha, a.margin, radius);
  const bool empty = r.area() == 0;
  a.rects[4 * i] = empty ? 0 : r.x0;
  a.rects[4 * i + 1] = empty ? 0 : r.y0;
  a.rects[4 * i + 2] = empty ? 0 : r.x1;
  a.rects[4 * i + 3] = empty ? 0 : r.y1;
  if (empty || !a.diff) return;
  const int w = a.tiles_x + 1;
  atomic_add(a.diff + r.y0 * w + r.x0, 1);
  atomic_add(a.diff + r.y0 * w + r.x1, -1);
  atomic_add(a.diff + r.y1 * w + r.x0, -1);
  atomic_add(a.diff + r.y1 * w + r.x1, 1);
}

// ---- which Gaussians each rank needs: flags[d * n + i] = rect i meets rank d's render rectangle ----
constexpr int kMaxRanks = 256;
struct SelectArgs {
  std::size_t n;
  int ranks;
  const int* rects;       // [N, 4]
  const int* regions;     // [ranks, 4] tiles, x0 y0 x1 y1 (empty: x0 >= x1 or y0 >= y1)
  std::uint32_t* flags;   // [ranks, N]
};

TG_HD TG_INLINE void select_element(const SelectArgs& a, std::size_t i) {
  const int* r = a.rects + 4 * i;
  for (int d = 0; d < a.ranks; ++d) {
    const int* q = a.regions + 4 * d;
    const bool meets = r[0] < r[2] && r[1] < r[3] && r[0] < q[2] && q[0] < r[2] && r[1] < q[3] && q[1] < r[3];
    a.flags[std::size_t(d) * a.n + i] = meets ? 1u : 0u;
  }
}

// source[positions[k]] = k mod n for every flagged k of [ranks * n] (positions: exclusive scan of the flags).
struct CompactArgs {
  std::size_t total;  // ranks * n
  std::size_t n;
  const std::uint32_t *flags, *positions;
  std::uint32_t* source;
};

TG_HD TG_INLINE void compact_element(const CompactArgs& a, std::size_t k) {
  if (a.flags[k]) a.source[a.positions[k]] = std::uint32_t(k % a.n);
}

// ---- rows of records <-> per-Gaussian fields ----
constexpr int kMaxFields = 20;
struct Fields {
  int count;
  float* data[kMaxFields];
  int width[kMaxFields];
  int record;  // sum of the widths
};

// records[j] = the fields of row (source ? source[j] : first + j), concatenated.
struct PackArgs {
  std::size_t rows;
  Fields f;
  const std::uint32_t* source;
  std::size_t first;
  float* records;
};

TG_HD TG_INLINE void pack_element(const PackArgs& a, std::size_t j) {
  const std::size_t row = a.source ? a.source[j] : a.first + j;
  float* out = a.records + j * std::size_t(a.f.record);
  for (int k = 0; k < a.f.count; ++k) {
    const int w = a.f.width[k];
    const float* in = a.f.data[k] + row * std::size_t(w);
    for (int c = 0; c < w; ++c) *out++ = in[c];
  }
}

// fields of row (first + j) = records[j] (add: += instead, rows given by target[j]).
struct UnpackArgs {
  std::size_t rows;
  Fields f;
  const float* records;
  const std::uint32_t* target;  // null: row first + j
  std::size_t first;
  bool add;
};

TG_HD TG_INLINE void unpack_element(const UnpackArgs& a, std::size_t j) {
  const std::size_t row = a.target ? a.target[j] : a.first + j;
  const float* in = a.records + j * std::size_t(a.f.record);
  for (int k = 0; k < a.f.count; ++k) {
    const int w = a.f.width[k];
    float* out = a.f.data[k] + row * std::size_t(w);
    for (int c = 0; c < w; ++c) out[c] = a.add ? out[c] + *in++ : *in++;
  }
}

// ---- the target pixels of a crop ----
struct CropArgs {
  const std::uint8_t* src;  // [H, W, channels]: a target image (4) or a valid-pixel mask (1)
  int src_width, channels;
  int x0, y0, width, height;
  std::uint8_t* dst;  // [height, width, channels]

  TG_HD std::size_t bytes() const { return std::size_t(width) * std::size_t(height) * std::size_t(channels); }
};

TG_HD TG_INLINE void crop_element(const CropArgs& a, std::size_t e) {
  const std::size_t pixel = std::size_t(a.channels);
  const std::size_t row_bytes = std::size_t(a.width) * pixel;
  const std::size_t y = e / row_bytes, x = e % row_bytes;
  a.dst[e] = a.src[(std::size_t(a.y0) + y) * std::size_t(a.src_width) * pixel + std::size_t(a.x0) * pixel + x];
}

// ---- replica hashes (replicas.cpp): an array's sum is the sum, mod 2^64, of a mixed hash of each 64-bit word
// (two floats' bits; the last float of an odd count alone) with its position, so that any order of summation, on
// either device, gives the same bits ----
struct HashArgs {
  const float* data;
  std::size_t floats;
  TG_HD std::size_t words() const { return (floats + 1) / 2; }
};

TG_HD TG_INLINE std::uint64_t float_bits(float x) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

TG_HD TG_INLINE std::uint64_t hash_word_element(const HashArgs& a, std::size_t w) {
  const std::size_t i = 2 * w;
  const std::uint64_t word = float_bits(a.data[i]) | (i + 1 < a.floats ? float_bits(a.data[i + 1]) << 32 : 0);
  return training::mix64(word ^ training::mix64(std::uint64_t(w)));
}

// ---- entry points (CPU loops or CUDA kernels) ----
void exact_codes(Device d, const ExactArgs& a);
void exact_quantize(Device d, const ExactArgs& a);
void exact_dequantize(Device d, const ExactArgs& a);
void view_stats(Device d, const ViewStatsArgs& a);
void add_stats(Device d, const AddStatsArgs& a);
void rects(Device d, const RectArgs& a);
void select(Device d, const SelectArgs& a);
// Exclusive scan of the ranks * n flags (the buffer holds one more, zero) into positions (ranks * n + 1); returns
// the first position of each rank's block and the total: ranks + 1 values (one read back).
std::vector<std::uint32_t> scan_flags(Device d, std::uint32_t* flags, std::uint32_t* positions, std::size_t n,
                                      int ranks);
void compact(Device d, const CompactArgs& a);
void pack(Device d, const PackArgs& a);
void unpack(Device d, const UnpackArgs& a);
void crop(Device d, const CropArgs& a);
// The sum of hash_word_element over each array's words, one value per array (one read back).
std::vector<std::uint64_t> hash_sums(Device d, const std::vector<HashArgs>& arrays);

}  // namespace tilegrad::distributed::detail
