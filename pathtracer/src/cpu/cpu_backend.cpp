// CPU backend (OpenMP): render, and the backward pass with every accumulation strategy. Atomic,
// WarpAggregated and SortReduce receive records (one per sample and contribution slot, in bounded chunks)
// through the AD layer's accumulator; Owned reduces each tile's contributions locally, in a fixed order,
// into the tile's slots of the per-sphere segments and finishes with the exact segmented sum.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "../backend.h"
#include "loops.h"
#include "tilegrad/ad/accumulator.h"
#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {
namespace {

template <class T>
View<T> host_view(std::vector<T>& v) {
  return View<T>(v.data(), v.size(), Device::Cpu);
}
template <class T>
View<const T> host_view(const std::vector<T>& v) {
  return View<const T>(v.data(), v.size(), Device::Cpu);
}

class CpuBackend final : public Backend {
 public:
  void set_scene(const PreparedScene<float>& scene) override { m_scene = scene; }

  void render(const RenderSettings& st, float* image) override {
    const SceneView<float> sc = m_scene.view();
    const int w = sc.camera.width, h = sc.camera.height;
#pragma omp parallel for schedule(dynamic, 1)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const Vec3<float> L = cpu_backend::pixel_radiance(sc, st, x, y);
        for (int c = 0; c < 3; ++c) image[(static_cast<std::size_t>(y) * w + x) * 3 + c] = L[c];
      }
  }

  BackwardStats backward(const RenderSettings& st, const GradientSettings& gs, const BackwardLayout& layout,
                         const float* d_image, float* d_params) override {
    const SceneView<float> sc = m_scene.view(samples_dormant(st, gs, m_scene.dormant.size()));
    BackwardStats stats;
    stats.strategy = gs.strategy;
    if (gs.strategy == Accumulation::Owned && !layout.tiles.fits()) stats.strategy = Accumulation::SortReduce;
    stats.pixel_samples = static_cast<std::size_t>(sc.camera.width) * sc.camera.height * st.spp;
    stats.contributions = gs.interior ? stats.pixel_samples * max_involved(st, sc.num_spheres, sc.num_dormant > 0) : 0;
    stats.edge_samples = gs.boundary && !st.soft ? layout.edges.total() : 0;
    const std::size_t n = m_scene.num_spheres();
    View<float> grad(d_params, n * kSphereParams, Device::Cpu);
    std::fill(d_params, d_params + n * kSphereParams, 0.0f);
    if (n == 0) return stats;
    if (stats.strategy == Accumulation::Owned) {
      owned(sc, st, gs, layout, d_image, grad, stats);
    } else {
      records(sc, st, gs, layout, d_image, grad, stats);
    }
    stats.workspace_bytes = m_acc.workspace_bytes();
    return stats;
  }

  std::size_t memory_bytes() const override {
    return m_values.capacity() * sizeof(float) + m_ids.capacity() * 4 + m_grad.capacity() * sizeof(float) +
           m_acc.workspace_bytes();
  }

 private:
  void owned(const SceneView<float>& sc, const RenderSettings& st, const GradientSettings& gs,
             const BackwardLayout& L, const float* d_image, View<float> grad, BackwardStats& stats) {
    const TileTables& tiles = L.tiles;
    const OwnedLayout& o = L.owned;
    m_values.assign(o.rows() * kSphereParams, 0.0f);
    stats.record_bytes = m_values.size() * sizeof(float);
    stats.layout_bytes = (tiles.offsets.size() + tiles.ids.size() + o.pair_slot.size() + o.segments.size()) * 4 +
                         L.edges.curves.size() * sizeof(EdgeCurve);
    std::atomic<bool> missing{false};
    if (gs.interior) {
      const auto num_tiles = static_cast<std::ptrdiff_t>(tiles.tiles());
#pragma omp parallel for schedule(dynamic, 1)
      for (std::ptrdiff_t t = 0; t < num_tiles; ++t) {
        const std::uint32_t begin = tiles.offsets[t], listed = tiles.offsets[t + 1] - begin;
        const std::uint32_t* ids = tiles.ids.data() + begin;
        std::vector<float> part(static_cast<std::size_t>(listed) * kSphereParams, 0.0f);
        const int x0 = static_cast<int>(t % tiles.tiles_x) * kTileSize, y0 = static_cast<int>(t / tiles.tiles_x) * kTileSize;
        const int x1 = std::min(x0 + kTileSize, sc.camera.width), y1 = std::min(y0 + kTileSize, sc.camera.height);
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x)
            cpu_backend::pixel_contributions(sc, st, x, y, d_image, [&](int, int, int id, const float* row) {
              const std::uint32_t* it = std::lower_bound(ids, ids + listed, static_cast<std::uint32_t>(id));
              if (it == ids + listed || *it != static_cast<std::uint32_t>(id)) {
                missing = true;
                return;
              }
              float* dst = part.data() + (it - ids) * kSphereParams;
              for (int c = 0; c < kSphereParams; ++c) dst[c] += row[c];
            });
        for (std::uint32_t j = 0; j < listed; ++j)
          std::memcpy(&m_values[static_cast<std::size_t>(o.pair_slot[begin + j]) * kSphereParams],
                      &part[static_cast<std::size_t>(j) * kSphereParams], sizeof(float) * kSphereParams);
      }
    }
    TG_ASSERT(!missing, "a sample contributed to a sphere its tile does not list");
    if (stats.edge_samples > 0) {
      const auto curves = static_cast<std::ptrdiff_t>(L.edges.curves.size());
#pragma omp parallel for schedule(dynamic, 16)
      for (std::ptrdiff_t i = 0; i < curves; ++i) {
        const EdgeCurve& e = L.edges.curves[i];
        cpu_backend::curve_contributions(sc, st, e, d_image, [&](std::uint32_t k, const EdgeRows<float>& rows) {
          auto put = [&](std::uint32_t row, const float* v) {  // the chunk's row holds the sum of its samples
            float* dst = &m_values[(static_cast<std::size_t>(row) + edge_chunk(e, k)) * kSphereParams];
            for (int c = 0; c < kSphereParams; ++c) dst[c] += v[c];
          };
          if (rows.has_a) put(e.row_a, rows.a);
          if (rows.has_b) put(e.row_b, rows.b);
        });
      }
    }
    m_acc.segmented_sum(host_view(m_values), kSphereParams, host_view(o.segments), grad, {false});
  }

  // Records with a sentinel id (= number of spheres, an extra gradient row) in unused slots.
  void records(const SceneView<float>& sc, const RenderSettings& st, const GradientSettings& gs,
               const BackwardLayout& L, const float* d_image, View<float> grad, BackwardStats& stats) {
    const std::size_t n = static_cast<std::size_t>(sc.num_spheres);
    const auto sentinel = static_cast<std::uint32_t>(n);
    m_grad.assign((n + 1) * kSphereParams, 0.0f);
    const int w = sc.camera.width, h = sc.camera.height;
    const int slots = max_involved(st, sc.num_spheres, sc.num_dormant > 0);
    const std::size_t per_pixel = static_cast<std::size_t>(st.spp) * slots;
    if (gs.interior) {
      const int rows = tile_rows_per_chunk(w, per_pixel) * kTileSize;
      for (int y0 = 0; y0 < h; y0 += rows) {
        const int y1 = std::min(h, y0 + rows);
        const std::size_t count = static_cast<std::size_t>(y1 - y0) * w * per_pixel;
        m_ids.assign(count, sentinel);
        m_values.assign(count * kSphereParams, 0.0f);
#pragma omp parallel for schedule(dynamic, 1)
        for (int y = y0; y < y1; ++y)
          for (int x = 0; x < w; ++x) {
            const std::size_t base = (static_cast<std::size_t>(y - y0) * w + x) * per_pixel;
            cpu_backend::pixel_contributions(sc, st, x, y, d_image, [&](int s, int k, int id, const float* row) {
              const std::size_t i = base + static_cast<std::size_t>(s) * slots + k;
              m_ids[i] = static_cast<std::uint32_t>(id);
              std::memcpy(&m_values[i * kSphereParams], row, sizeof(float) * kSphereParams);
            });
          }
        accumulate(stats);
        ++stats.record_chunks;
      }
    }
    if (stats.edge_samples > 0) {  // two record slots per sample: spheres a and b of its curve
      m_ids.assign(2 * L.edges.total(), sentinel);
      m_values.assign(2 * L.edges.total() * kSphereParams, 0.0f);
      const auto curves = static_cast<std::ptrdiff_t>(L.edges.curves.size());
#pragma omp parallel for schedule(dynamic, 16)
      for (std::ptrdiff_t i = 0; i < curves; ++i) {
        const EdgeCurve& e = L.edges.curves[i];
        cpu_backend::curve_contributions(sc, st, e, d_image, [&](std::uint32_t k, const EdgeRows<float>& rows) {
          const std::size_t slot = 2 * (static_cast<std::size_t>(e.first) + k);
          auto put = [&](std::size_t r, int id, const float* v) {
            m_ids[r] = static_cast<std::uint32_t>(id);
            std::memcpy(&m_values[r * kSphereParams], v, sizeof(float) * kSphereParams);
          };
          if (rows.has_a) put(slot, e.a, rows.a);
          if (rows.has_b) put(slot + 1, e.b, rows.b);
        });
      }
      accumulate(stats);
    }
    std::copy(m_grad.begin(), m_grad.begin() + static_cast<std::ptrdiff_t>(grad.size()), grad.data());
  }

  void accumulate(BackwardStats& stats) {
    stats.record_bytes = std::max(stats.record_bytes, m_ids.size() * 4 + m_values.size() * sizeof(float));
    Contributions in;
    in.ids = host_view(static_cast<const std::vector<std::uint32_t>&>(m_ids));
    in.values = host_view(static_cast<const std::vector<float>&>(m_values));
    in.width = kSphereParams;
    m_acc.accumulate(stats.strategy, in, host_view(m_grad), {false});
  }

  PreparedScene<float> m_scene;
  Accumulator m_acc{Device::Cpu};
  std::vector<float> m_values, m_grad;
  std::vector<std::uint32_t> m_ids;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace tilegrad::pathtracer
