// CPU reference of the rasterizer (see pipeline.h). Plain loops, OpenMP over Gaussians, pixels and tiles.
#include "cpu/pipeline.h"

#include <algorithm>
#include <numeric>
#include <type_traits>

#include "tilegrad/ad/accumulator.h"
#include "tilegrad/ad/warp_order.h"
#include "tilegrad/rasterizer/element/blend.h"
#include "tilegrad/rasterizer/element/projection_backward.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::raster::cpu_backend {
namespace {

// Below this much work per loop, threads cost more than they save (and spin under load).
constexpr std::ptrdiff_t kParallelMin = 4096;

// Stage 1: per-Gaussian projection records and tiles touched.
template <class T>
void project(const ParamArrays<T>& p, State<T>& s, std::vector<std::uint32_t>& tiles_touched) {
  const auto n = static_cast<std::ptrdiff_t>(p.count);
  s.projected.assign(p.count * kProjWidth, T(0));
  s.clamped.assign(p.count, 0);
  tiles_touched.assign(p.count, 0);
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto g = static_cast<std::size_t>(i);
    const ProjectionRecord<T> pr = project_record(p, g, s.projection);
    if (pr.tiles == 0) continue;
    std::copy_n(pr.record, kProjWidth, &s.projected[g * kProjWidth]);
    s.clamped[g] = pr.clamped;
    tiles_touched[g] = static_cast<std::uint32_t>(pr.tiles);
  }
}

// Stage 2: instances per (Gaussian, tile), contiguous per Gaussian; stable sort by (tile, depth).
template <class T>
void bin(const ParamArrays<T>& p, State<T>& s, const std::vector<std::uint32_t>& tiles_touched) {
  s.offsets.assign(p.count + 1, 0);
  for (std::size_t g = 0; g < p.count; ++g) s.offsets[g + 1] = s.offsets[g] + tiles_touched[g];
  const std::size_t instances = s.offsets[p.count];
  s.visible = static_cast<std::size_t>(std::count_if(tiles_touched.begin(), tiles_touched.end(),
                                                     [](std::uint32_t t) { return t > 0; }));
  std::vector<std::uint64_t> keys(instances);
  s.instance_gaussian.assign(instances, 0);
  const auto n = static_cast<std::ptrdiff_t>(p.count);
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto g = static_cast<std::size_t>(i);
    if (!tiles_touched[g]) continue;
    const T* pr = &s.projected[g * kProjWidth];
    const TileRect rect = record_tiles(pr, s.grid());
    std::uint32_t slot = s.offsets[g];
    for (int ty = rect.y0; ty < rect.y1; ++ty)
      for (int tx = rect.x0; tx < rect.x1; ++tx, ++slot) {
        keys[slot] = instance_key(static_cast<std::uint32_t>(ty * s.grid().tiles_x + tx), float(pr[kDepth]));
        s.instance_gaussian[slot] = static_cast<std::uint32_t>(g);
      }
  }
  s.sorted_slots.resize(instances);
  std::iota(s.sorted_slots.begin(), s.sorted_slots.end(), 0u);
  std::stable_sort(s.sorted_slots.begin(), s.sorted_slots.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  s.tile_start.assign(static_cast<std::size_t>(s.grid().count()) + 1, 0);
  for (std::uint32_t slot : s.sorted_slots) ++s.tile_start[(keys[slot] >> 32) + 1];
  for (int t = 0; t < s.grid().count(); ++t) s.tile_start[t + 1] += s.tile_start[t];
}

// The projection record of tile-sorted instance e.
template <class T>
const T* record_of(const State<T>& s, std::uint32_t e) {
  return &s.projected[std::size_t(s.instance_gaussian[s.sorted_slots[e]]) * kProjWidth];
}

// Stage 3: front-to-back compositing per pixel.
template <class T>
void blend(State<T>& s, const Images<T>& out) {
  const TileGrid& grid = s.grid();
  const int w = grid.width;
  const std::size_t pixels = std::size_t(w) * grid.height;
  s.final_transmittance.assign(pixels, T(1));
  s.contributors.assign(pixels, 0);
  const Thresholds& th = s.settings.thresholds;
#pragma omp parallel for schedule(dynamic, 64) if (static_cast<std::ptrdiff_t>(pixels) > kParallelMin)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(pixels); ++i) {
    const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
    const int tile = (y / kTileSize) * grid.tiles_x + x / kTileSize;
    const T px = T(x) + T(0.5), py = T(y) + T(0.5);
    Composite<T> c;
    std::uint32_t contributors = 0;
    for (std::uint32_t e = s.tile_start[tile]; e < s.tile_start[tile + 1]; ++e) {
      const T* pr = record_of(s, e);
      const Fragment<T> f = fragment_at(splat_of(pr), px, py, th);
      if (!f.used) continue;
      if (!composite(c, f, color_depth_of(pr), th)) break;
      contributors = e - s.tile_start[tile] + 1;
    }
    for (int k = 0; k < 3; ++k) out.image[3 * i + k] = c.rgb[k] + c.trans * T(s.settings.background[k]);
    out.alpha[i] = T(1) - c.trans;
    if (out.depth) out.depth[i] = c.depth;
    s.final_transmittance[i] = c.trans;
    s.contributors[i] = contributors;
  }
}

}  // namespace

template <class T>
void forward(const ParamArrays<T>& p, const ProjectionCamera& camera, const RasterSettings& settings, State<T>& s,
             const Images<T>& out) {
  const int active_degree = settings.sh_degree < 0 ? p.stored_degree : std::min(settings.sh_degree, p.stored_degree);
  s.projection = projection_settings(camera, settings, active_degree);
  s.settings = settings;
  std::vector<std::uint32_t> tiles_touched;
  project(p, s, tiles_touched);
  bin(p, s, tiles_touched);
  blend(s, out);
}

namespace {

// Blend backward of one tile, as the CUDA kernel does it: the tile's pixels in its thread order (row-major, eight
// warps of 32) walk the tile's instances together, back to front from the last contributor (the reverse sweep,
// element/blend.h); each instance's record is the sum over the pixels in the warps' order (warp_order_sum within a
// warp, then the warps in order) and goes to partial[slot]. Same records, same sums: the same bits as the GPU's
// wherever the fragments' own arithmetic agrees (TILEGRAD_PORTABLE_MATH).
template <class T>
void blend_backward_tile(const State<T>& s, int tile, const LossGradients<T>& dl, T* partial) {
  const TileGrid& grid = s.grid();
  const Thresholds& th = s.settings.thresholds;
  const std::uint32_t begin = s.tile_start[tile], end = s.tile_start[tile + 1];
  for (std::uint32_t e = begin; e < end; ++e)
    std::fill_n(partial + std::size_t(s.sorted_slots[e]) * kGrad2dWidth, kGrad2dWidth, T(0));
  ReverseSweep<T> sweep[kTilePixels];
  std::uint32_t count[kTilePixels] = {};  // contributors of each pixel (0 outside the image)
  std::uint32_t longest = 0;
  const int x0 = (tile % grid.tiles_x) * kTileSize, y0 = (tile / grid.tiles_x) * kTileSize;
  for (int t = 0; t < kTilePixels; ++t) {
    const int x = x0 + t % kTileSize, y = y0 + t / kTileSize;
    if (x >= grid.width || y >= grid.height) continue;
    const std::size_t pix = std::size_t(y) * grid.width + x;
    const Vec3<T> d_rgb{{dl.image[3 * pix], dl.image[3 * pix + 1], dl.image[3 * pix + 2]}};
    sweep[t] = start_sweep(x, y, s.final_transmittance[pix], d_rgb, dl.alpha ? dl.alpha[pix] : T(0),
                           dl.depth ? dl.depth[pix] : T(0), s.settings.background);
    count[t] = s.contributors[pix];
    longest = std::max(longest, count[t]);
  }
  constexpr int kWarps = kTilePixels / 32;
  T record[kTilePixels][kGrad2dWidth] = {};  // rows of the pixels a fragment reached, zeroed again after use
  for (std::uint32_t e = begin + longest; e-- > begin;) {
    const T* pr = record_of(s, e);
    const Splat<T> splat = splat_of(pr);
    const Vec4<T> cd = color_depth_of(pr);
    bool reached[kWarps] = {};
    for (int t = 0; t < kTilePixels; ++t)
      if (e - begin < count[t] && fragment_backward<kGrad2dWidth>(sweep[t], splat, cd, th, record[t]))
        reached[t / 32] = true;
    T* out = partial + std::size_t(s.sorted_slots[e]) * kGrad2dWidth;
    for (int c = 0; c < kGrad2dWidth; ++c) {
      T total = T(0);
      for (int w = 0; w < kWarps; ++w) {
        T lanes[32] = {};  // a warp no fragment reached sums to zero
        if (reached[w])
          for (int l = 0; l < 32; ++l) lanes[l] = record[32 * w + l][c];
        total += reached[w] ? warp_order_sum(lanes) : T(0);
      }
      out[c] = total;
    }
    for (int w = 0; w < kWarps; ++w)
      if (reached[w]) std::fill_n(&record[32 * w][0], 32 * kGrad2dWidth, T(0));
  }
}

// Per-Gaussian sums of the per-instance partials (instances of a Gaussian are contiguous).
template <class T>
void reduce_instances(const State<T>& s, const std::vector<T>& partial, Accumulation accumulation,
                      std::vector<T>& per_gaussian) {
  const std::size_t n = s.offsets.size() - 1;
  per_gaussian.assign(n * kGrad2dWidth, T(0));
  if constexpr (std::is_same_v<T, float>) {
    if (is_deterministic(accumulation)) {
      Accumulator acc(Device::Cpu);
      acc.segmented_sum(View<const float>(partial.data(), partial.size(), Device::Cpu), kGrad2dWidth,
                        View<const std::uint32_t>(s.offsets.data(), s.offsets.size(), Device::Cpu),
                        View<float>(per_gaussian.data(), per_gaussian.size(), Device::Cpu));
      return;
    }
  }
  (void)accumulation;
  for (std::size_t g = 0; g < n; ++g)
    for (std::uint32_t i = s.offsets[g]; i < s.offsets[g + 1]; ++i)
      for (int c = 0; c < kGrad2dWidth; ++c)
        per_gaussian[g * kGrad2dWidth + c] += partial[std::size_t(i) * kGrad2dWidth + c];
}

}  // namespace

template <class T>
void backward(const ParamArrays<T>& p, const State<T>& s, const LossGradients<T>& dl, Accumulation accumulation,
              const ParamGradients<T>& g) {
  std::vector<T> partial(s.sorted_slots.size() * kGrad2dWidth, T(0));
#pragma omp parallel for schedule(dynamic, 4) if (s.grid().count() > 16)
  for (int tile = 0; tile < s.grid().count(); ++tile) blend_backward_tile(s, tile, dl, partial.data());
  std::vector<T> g2d;
  reduce_instances(s, partial, accumulation, g2d);

  const std::size_t n = p.count;
  const int color_values = p.colors ? 3 : p.sh_values();
  T* color_grads = p.colors ? g.colors : g.sh;
#pragma omp parallel for schedule(static) if (static_cast<std::ptrdiff_t>(n) > kParallelMin)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const T* gk = &g2d[k * kGrad2dWidth];
    T* color_grad = color_grads + k * color_values;
    std::fill_n(color_grad, color_values, T(0));  // inactive bands, and Gaussians not rendered
    ParamGrad<T> pg{};
    if (s.offsets[k] != s.offsets[k + 1]) {  // rendered
      const ProjectionSettings& ps = s.projection;
      pg = project_gaussian_vjp(p.mean(k), p.log_scale(k), p.quat(k), p.opacity_logits[k], ps.camera, ps.blur,
                                ps.antialiased, gk);
      if (p.colors) {
        std::copy_n(gk + kGradColor, 3, color_grad);
      } else {
        sh_color_vjp(ps.active_degree, p.sh + k * color_values, p.mean(k), ps.camera.position, s.clamped[k],
                     gk + kGradColor, pg.mean, color_grad);
      }
    }
    for (int c = 0; c < 3; ++c) {
      g.means[3 * k + c] = pg.mean[c];
      g.log_scales[3 * k + c] = pg.log_scale[c];
    }
    for (int c = 0; c < 4; ++c) g.quats[4 * k + c] = pg.quat[c];
    g.opacity_logits[k] = pg.opacity_logit;
    for (int c = 0; c < 2; ++c) {
      g.mean2d[2 * k + c] = gk[kGradU + c];
      if (g.mean2d_abs) g.mean2d_abs[2 * k + c] = gk[kGradAbsU + c];
    }
  }
}

template void forward<float>(const ParamArrays<float>&, const ProjectionCamera&, const RasterSettings&, State<float>&,
                             const Images<float>&);
template void forward<double>(const ParamArrays<double>&, const ProjectionCamera&, const RasterSettings&,
                              State<double>&, const Images<double>&);
template void backward<float>(const ParamArrays<float>&, const State<float>&, const LossGradients<float>&, Accumulation,
                              const ParamGradients<float>&);
template void backward<double>(const ParamArrays<double>&, const State<double>&, const LossGradients<double>&,
                               Accumulation, const ParamGradients<double>&);

}  // namespace tilegrad::raster::cpu_backend
