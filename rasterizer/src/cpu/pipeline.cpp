// CPU reference of the rasterizer (see pipeline.h). Plain loops, OpenMP over Gaussians and tiles.
#include "cpu/pipeline.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "tilegrad/ad/accumulate.h"
#include "tilegrad/rasterizer/element/blend.h"
#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/projection_backward.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::raster::cpu {
namespace {

// Below this much work per loop, threads cost more than they save (and spin under load).
constexpr std::ptrdiff_t kParallelMin = 4096;

template <class T>
Vec3<T> load3(const T* p, std::size_t i) {
  return {{p[3 * i], p[3 * i + 1], p[3 * i + 2]}};
}
template <class T>
Vec4<T> load4(const T* p, std::size_t i) {
  return {{p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]}};
}

template <class T>
Splat<T> splat_of(const T* proj) {
  return {proj[kU], proj[kV], proj[kA], proj[kB], proj[kC], proj[kOpacity]};
}

// Stage 1: per-Gaussian projection and colour; tiles touched.
template <class T>
void project(const Params<T>& p, State<T>& s, std::vector<std::uint32_t>& tiles_touched) {
  const auto n = static_cast<std::ptrdiff_t>(p.count);
  const int stored_k = sh_coefficients(p.stored_degree);
  s.projected.assign(p.count * kProjWidth, T(0));
  s.clamped.assign(p.count, 0);
  tiles_touched.assign(p.count, 0);
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto g = static_cast<std::size_t>(i);
    const Vec3<T> mean = load3(p.means, g);
    const Projected<T> pr = project_gaussian(mean, load3(p.log_scales, g), load4(p.quats, g), p.opacity_logits[g],
                                             s.camera, s.settings.blur, s.settings.antialiased);
    if (!pr.valid || !is_finite(pr.mean2d[0]) || !is_finite(pr.mean2d[1])) continue;
    const Thresholds& th = s.settings.thresholds;
    const Extents ext = footprint_extents(float(pr.cov2d[0]), float(pr.cov2d[1]), float(pr.cov2d[2]), float(pr.opacity),
                                          th.extent_sigmas, th.min_alpha);
    T* out = &s.projected[g * kProjWidth];
    out[kU] = pr.mean2d[0];
    out[kV] = pr.mean2d[1];
    out[kExtentX] = T(ext.x);
    out[kExtentY] = T(ext.y);
    const int area = record_tiles(out, s.grid).area();
    if (area == 0) {
      std::fill_n(out, kProjWidth, T(0));
      continue;
    }
    out[kA] = pr.conic[0];
    out[kB] = pr.conic[1];
    out[kC] = pr.conic[2];
    out[kOpacity] = pr.opacity;
    out[kDepth] = pr.depth;
    Vec3<T> rgb;
    if (p.colors) {
      rgb = load3(p.colors, g);
    } else {
      rgb = sh_color(s.active_degree, p.sh + g * stored_k * 3, mean, s.camera.position, s.clamped[g]);
    }
    out[kRed] = rgb[0];
    out[kGreen] = rgb[1];
    out[kBlue] = rgb[2];
    // NaN or infinite parameters (opacity, colour, conic) would poison every pixel they touch: cull them.
    bool finite = true;
    for (int c = 0; c < kProjWidth; ++c) finite = finite && is_finite(out[c]);
    if (!finite) {
      std::fill_n(out, kProjWidth, T(0));
      continue;
    }
    tiles_touched[g] = static_cast<std::uint32_t>(area);
  }
}

// Stage 2: instances per (Gaussian, tile), contiguous per Gaussian; stable sort by (tile, depth).
template <class T>
void bin(const Params<T>& p, State<T>& s, const std::vector<std::uint32_t>& tiles_touched) {
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
    const TileRect rect = record_tiles(pr, s.grid);
    std::uint32_t slot = s.offsets[g];
    for (int ty = rect.y0; ty < rect.y1; ++ty)
      for (int tx = rect.x0; tx < rect.x1; ++tx, ++slot) {
        keys[slot] = instance_key(static_cast<std::uint32_t>(ty * s.grid.tiles_x + tx), float(pr[kDepth]));
        s.instance_gaussian[slot] = static_cast<std::uint32_t>(g);
      }
  }
  s.sorted_slots.resize(instances);
  std::iota(s.sorted_slots.begin(), s.sorted_slots.end(), 0u);
  std::stable_sort(s.sorted_slots.begin(), s.sorted_slots.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  s.tile_start.assign(static_cast<std::size_t>(s.grid.count()) + 1, 0);
  for (std::uint32_t slot : s.sorted_slots) ++s.tile_start[(keys[slot] >> 32) + 1];
  for (int t = 0; t < s.grid.count(); ++t) s.tile_start[t + 1] += s.tile_start[t];
}

// Stage 3: front-to-back compositing per pixel.
template <class T>
void blend(State<T>& s) {
  const int w = s.grid.width, h = s.grid.height;
  const std::size_t pixels = std::size_t(w) * h;
  s.image.assign(pixels * 3, T(0));
  s.alpha.assign(pixels, T(0));
  s.depth.assign(pixels, T(0));
  s.final_transmittance.assign(pixels, T(1));
  s.contributors.assign(pixels, 0);
  const Thresholds& th = s.settings.thresholds;
#pragma omp parallel for schedule(dynamic, 64) if (static_cast<std::ptrdiff_t>(pixels) > kParallelMin)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(pixels); ++i) {
    const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
    const int tile = (y / kTileSize) * s.grid.tiles_x + x / kTileSize;
    const T px = T(x) + T(0.5), py = T(y) + T(0.5);
    T trans = T(1), rgb[3] = {T(0), T(0), T(0)}, depth = T(0);
    std::uint32_t contributors = 0;
    for (std::uint32_t e = s.tile_start[tile]; e < s.tile_start[tile + 1]; ++e) {
      const T* pr = &s.projected[std::size_t(s.instance_gaussian[s.sorted_slots[e]]) * kProjWidth];
      const Fragment<T> f = fragment_at(splat_of(pr), px, py, th);
      if (!f.used) continue;
      const T next = trans * (T(1) - f.alpha);
      if (next < T(th.min_transmittance)) break;
      const T weight = f.alpha * trans;
      for (int c = 0; c < 3; ++c) rgb[c] += weight * pr[kRed + c];
      depth += weight * pr[kDepth];
      trans = next;
      contributors = e - s.tile_start[tile] + 1;
    }
    for (int c = 0; c < 3; ++c) s.image[3 * i + c] = rgb[c] + trans * T(s.settings.background[c]);
    s.alpha[i] = T(1) - trans;
    s.depth[i] = depth;
    s.final_transmittance[i] = trans;
    s.contributors[i] = contributors;
  }
}

}  // namespace

template <class T>
void forward(const Params<T>& p, const ProjectionCamera& camera, const RasterSettings& settings, State<T>& s) {
  s.camera = camera;
  s.grid = make_tile_grid(camera.width, camera.height);
  s.settings = settings;
  s.active_degree = settings.sh_degree < 0 ? p.stored_degree : std::min(settings.sh_degree, p.stored_degree);
  std::vector<std::uint32_t> tiles_touched;
  project(p, s, tiles_touched);
  bin(p, s, tiles_touched);
  blend(s);
}

namespace {

// Blend backward of one tile: per pixel, back to front, the gradient of each used fragment; the tile sums its
// pixels' contributions per instance (fixed pixel order) into partial[slot].
template <class T>
void blend_backward_tile(const State<T>& s, int tile, const T* dl_dimage, const T* dl_dalpha, const T* dl_ddepth,
                         T* partial) {
  const Thresholds& th = s.settings.thresholds;
  const std::uint32_t begin = s.tile_start[tile], end = s.tile_start[tile + 1];
  const int tx = tile % s.grid.tiles_x, ty = tile / s.grid.tiles_x;
  for (std::uint32_t e = begin; e < end; ++e) std::fill_n(partial + std::size_t(s.sorted_slots[e]) * kGrad2dWidth, kGrad2dWidth, T(0));
  for (int y = ty * kTileSize; y < std::min((ty + 1) * kTileSize, s.grid.height); ++y) {
    for (int x = tx * kTileSize; x < std::min((tx + 1) * kTileSize, s.grid.width); ++x) {
      const std::size_t pix = std::size_t(y) * s.grid.width + x;
      const T px = T(x) + T(0.5), py = T(y) + T(0.5);
      const T t_final = s.final_transmittance[pix];
      const T g_rgb[3] = {dl_dimage[3 * pix], dl_dimage[3 * pix + 1], dl_dimage[3 * pix + 2]};
      const T g_alpha_out = dl_dalpha ? dl_dalpha[pix] : T(0);
      const T g_depth = dl_ddepth ? dl_ddepth[pix] : T(0);
      const T g_background = g_rgb[0] * T(s.settings.background[0]) + g_rgb[1] * T(s.settings.background[1]) +
                             g_rgb[2] * T(s.settings.background[2]);
      T trans = t_final;
      T behind[4] = {T(0), T(0), T(0), T(0)};  // colour and depth composited behind the current fragment
      for (std::uint32_t e = begin + s.contributors[pix]; e-- > begin;) {
        const std::uint32_t slot = s.sorted_slots[e];
        const T* pr = &s.projected[std::size_t(s.instance_gaussian[slot]) * kProjWidth];
        const Fragment<T> f = fragment_at(splat_of(pr), px, py, th);
        if (!f.used) continue;
        const T one_minus = T(1) - f.alpha;
        trans = trans / one_minus;  // transmittance in front of this fragment
        const T weight = f.alpha * trans;
        T* out = partial + std::size_t(slot) * kGrad2dWidth;
        T g_a = T(0);
        for (int c = 0; c < 3; ++c) {
          out[kGradColor + c] += weight * g_rgb[c];
          g_a += (pr[kRed + c] - behind[c]) * g_rgb[c];
        }
        out[kGradDepth] += weight * g_depth;
        g_a += (pr[kDepth] - behind[3]) * g_depth;
        g_a = g_a * trans + (g_alpha_out - g_background) * t_final / one_minus;
        for (int c = 0; c < 3; ++c) behind[c] = f.alpha * pr[kRed + c] + one_minus * behind[c];
        behind[3] = f.alpha * pr[kDepth] + one_minus * behind[3];
        if (f.clamped) continue;  // alpha = max_alpha: no dependence on opacity or the footprint
        out[kGradOpacity] += g_a * f.weight;
        const T g_power = g_a * f.alpha;
        const T g_u = -g_power * (pr[kA] * f.dx + pr[kB] * f.dy);
        const T g_v = -g_power * (pr[kC] * f.dy + pr[kB] * f.dx);
        out[kGradU] += g_u;
        out[kGradV] += g_v;
        out[kGradAbsU] += g_u < T(0) ? -g_u : g_u;
        out[kGradAbsV] += g_v < T(0) ? -g_v : g_v;
        out[kGradConicA] += T(-0.5) * g_power * f.dx * f.dx;
        out[kGradConicB] += -g_power * f.dx * f.dy;
        out[kGradConicC] += T(-0.5) * g_power * f.dy * f.dy;
      }
    }
  }
}

// Per-Gaussian sums of the per-instance partials (instances of a Gaussian are contiguous).
template <class T>
void reduce_instances(const State<T>& s, const std::vector<T>& partial, Accumulation accumulation,
                      std::vector<T>& per_gaussian) {
  const std::size_t n = s.offsets.size() - 1;
  per_gaussian.assign(n * kGrad2dWidth, T(0));
  if constexpr (std::is_same_v<T, float>) {
    if (accumulation == Accumulation::Owned || accumulation == Accumulation::SortReduce) {
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
      for (int c = 0; c < kGrad2dWidth; ++c) per_gaussian[g * kGrad2dWidth + c] += partial[std::size_t(i) * kGrad2dWidth + c];
}

}  // namespace

template <class T>
void backward(const Params<T>& p, const State<T>& s, const T* dl_dimage, const T* dl_dalpha, const T* dl_ddepth,
              Accumulation accumulation, Grads<T>& g) {
  std::vector<T> partial(s.sorted_slots.size() * kGrad2dWidth, T(0));
#pragma omp parallel for schedule(dynamic, 4) if (s.grid.count() > 16)
  for (int tile = 0; tile < s.grid.count(); ++tile)
    blend_backward_tile(s, tile, dl_dimage, dl_dalpha, dl_ddepth, partial.data());
  std::vector<T> g2d;
  reduce_instances(s, partial, accumulation, g2d);

  const std::size_t n = p.count;
  const int stored_k = sh_coefficients(p.stored_degree);
  g.means.assign(n * 3, T(0));
  g.log_scales.assign(n * 3, T(0));
  g.quats.assign(n * 4, T(0));
  g.opacity_logits.assign(n, T(0));
  g.sh.assign(p.colors ? 0 : n * stored_k * 3, T(0));
  g.colors.assign(p.colors ? n * 3 : 0, T(0));
  g.mean2d.assign(n * 2, T(0));
  g.mean2d_abs.assign(n * 2, T(0));
#pragma omp parallel for schedule(static) if (static_cast<std::ptrdiff_t>(n) > kParallelMin)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (s.offsets[k] == s.offsets[k + 1]) continue;  // not rendered: zero gradient
    const T* gk = &g2d[k * kGrad2dWidth];
    const Vec3<T> mean = load3(p.means, k);
    ParamGrad<T> pg = project_gaussian_vjp(mean, load3(p.log_scales, k), load4(p.quats, k), p.opacity_logits[k],
                                           s.camera, s.settings.blur, s.settings.antialiased, gk);
    if (p.colors) {
      for (int c = 0; c < 3; ++c) g.colors[3 * k + c] = gk[kGradColor + c];
    } else {
      sh_color_vjp(s.active_degree, p.sh + k * stored_k * 3, mean, s.camera.position, s.clamped[k], gk + kGradColor,
                   pg.mean, &g.sh[k * stored_k * 3]);
    }
    for (int c = 0; c < 3; ++c) {
      g.means[3 * k + c] = pg.mean[c];
      g.log_scales[3 * k + c] = pg.log_scale[c];
    }
    for (int c = 0; c < 4; ++c) g.quats[4 * k + c] = pg.quat[c];
    g.opacity_logits[k] = pg.opacity_logit;
    g.mean2d[2 * k] = gk[kGradU];
    g.mean2d[2 * k + 1] = gk[kGradV];
    g.mean2d_abs[2 * k] = gk[kGradAbsU];
    g.mean2d_abs[2 * k + 1] = gk[kGradAbsV];
  }
}

template void forward<float>(const Params<float>&, const ProjectionCamera&, const RasterSettings&, State<float>&);
template void forward<double>(const Params<double>&, const ProjectionCamera&, const RasterSettings&, State<double>&);
template void backward<float>(const Params<float>&, const State<float>&, const float*, const float*, const float*,
                              Accumulation, Grads<float>&);
template void backward<double>(const Params<double>&, const State<double>&, const double*, const double*,
                               const double*, Accumulation, Grads<double>&);

}  // namespace tilegrad::raster::cpu
