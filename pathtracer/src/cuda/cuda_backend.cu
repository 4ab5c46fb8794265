// CUDA backend: the scene and the backward layouts in device memory (uploaded when they change), the
// render, and the backward pass per strategy: Atomic and WarpAggregated add inside the kernels, SortReduce
// writes records in chunks of tile rows (bounded memory) and reduces them with the AD layer, Owned writes
// partials straight into their per-sphere segments and finishes with one exact segmented sum.
#include <algorithm>
#include <optional>

#include "../backend.h"
#include "kernels.h"
#include "tilegrad/ad/accumulator.h"
#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/cuda/side_stream.h"
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/pixel_sample.h"

namespace tilegrad::pathtracer {
namespace {

using cuda_backend::Sink;

template <class T>
void upload(Buffer<T>& dst, const std::vector<T>& src) {
  dst.reset(src.size(), Device::Cuda);
  if (!src.empty()) dst.copy_from(View<const T>(src.data(), src.size(), Device::Cpu));
}

// Device scratch that only grows (contents discarded), so repeated calls allocate nothing.
template <class T>
void grow(Buffer<T>& b, std::size_t count) {
  if (b.size() < count || b.device() != Device::Cuda) b = Buffer<T>(count, Device::Cuda);
}

Sink sink_of(Accumulation a) {
  switch (a) {
    case Accumulation::Atomic: return Sink::Atomic;
    case Accumulation::WarpAggregated: return Sink::WarpAggregated;
    case Accumulation::SortReduce: return Sink::Records;
    case Accumulation::Owned: return Sink::Owned;
  }
  return Sink::Atomic;
}

class CudaBackend final : public Backend {
 public:
  void set_scene(const PreparedScene<float>& scene) override {
    upload(m_geometry, scene.geometry);
    upload(m_material, scene.material);
    upload(m_lights, scene.lights);
    upload(m_dormant, scene.dormant);
    upload(m_nodes, scene.bvh.nodes);
    upload(m_order, scene.bvh.order);
    m_view = SceneView<float>{};
    m_view.geometry = m_geometry.data();
    m_view.material = m_material.data();
    m_view.lights = m_lights.data();
    m_view.dormant = m_dormant.data();
    m_view.nodes = m_nodes.data();
    m_view.order = m_order.data();
    m_view.num_spheres = static_cast<int>(scene.geometry.size());
    m_view.num_lights = static_cast<int>(scene.lights.size());
    m_num_dormant = static_cast<int>(scene.dormant.size());
    m_view.num_nodes = static_cast<int>(scene.bvh.nodes.size());
    m_view.camera = scene.camera;
    m_layout_version = 0;
  }

  void render(const RenderSettings& st, float* image) override { cuda_backend::launch_render(m_view, st, image); }

  BackwardStats backward(const RenderSettings& st, const GradientSettings& gs, const BackwardLayout& L,
                         const float* d_image, float* d_params) override {
    BackwardStats stats;
    stats.strategy = gs.strategy == Accumulation::Owned && !L.tiles.fits() ? Accumulation::SortReduce : gs.strategy;
    const int n = m_view.num_spheres;
    SceneView<float> view = m_view;  // the forward's, with the dormant lights when they are sampled
    view.num_dormant = samples_dormant(st, gs, static_cast<std::size_t>(m_num_dormant)) ? m_num_dormant : 0;
    const int slots = max_involved(st, n, view.num_dormant > 0);
    stats.pixel_samples = static_cast<std::size_t>(m_view.camera.width) * m_view.camera.height * st.spp;
    stats.contributions = gs.interior ? stats.pixel_samples * slots : 0;
    stats.edge_samples = gs.boundary && !st.soft ? L.edges.total() : 0;
    // Owned zeroes the gradient itself, after its first launch (the kernel need not wait for it).
    if (stats.strategy != Accumulation::Owned || n == 0)
      TG_CUDA_CHECK(cudaMemsetAsync(d_params, 0, sizeof(float) * n * kSphereParams));
    if (n == 0) return stats;
    upload_layout(L);

    cuda_backend::InteriorArgs in{};
    in.scene = view;
    in.settings = st;
    in.d_image = d_image;
    in.slots = slots;
    in.tiles_x = L.tiles.tiles_x;
    in.first_tile = 0;
    in.num_tiles = static_cast<int>(L.tiles.tiles());
    in.sentinel = static_cast<std::uint32_t>(n);
    cuda_backend::EdgeArgs edge{};
    edge.scene = view;
    edge.settings = st;
    edge.d_image = d_image;
    edge.curves = m_curves.data();
    edge.num_curves = static_cast<int>(L.edges.curves.size());
    edge.total = static_cast<std::uint32_t>(stats.edge_samples);
    edge.sentinel = in.sentinel;

    switch (stats.strategy) {
      case Accumulation::Atomic:
      case Accumulation::WarpAggregated: {
        in.grad = edge.grad = d_params;
        const Sink sink = sink_of(stats.strategy);
        if (gs.interior) cuda_backend::launch_interior(sink, in);
        cuda_backend::launch_edges(sink, edge);
        break;
      }
      case Accumulation::SortReduce: sort_reduce(st, gs, L, in, edge, d_params, stats); break;
      case Accumulation::Owned: owned(gs, L, in, edge, d_params, stats); break;
    }
    stats.workspace_bytes = m_acc.workspace_bytes();
    return stats;
  }

  // Few spheres, one hard vertex, one sample per pixel: as many blocks as fit on the device at once, each
  // owning one row per sphere (no tile tables, no search, and a one-launch reduction of a few hundred rows
  // per sphere instead of one row per tile: the reduction's fixed cost is a large share of one sample's
  // backward). With more samples, one block per tile measured faster: the hardware hands tiles to SMs as
  // they free up, where a static assignment leaves some SMs with more work than others.
  // Not with dormant lights: their samples run in the general kernel (see launch_interior).
  std::uint32_t owned_block_rows(const RenderSettings& st, std::size_t n, bool dormant) const override {
    if (n == 0 || n > static_cast<std::size_t>(kTileCapacity) || dormant || !cuda_backend::owned_block_rows_apply(st))
      return 0;
    if (m_resident == 0) m_resident = cuda_backend::owned_resident_blocks();
    const std::size_t tiles = static_cast<std::size_t>((m_view.camera.width + kTileSize - 1) / kTileSize) *
                              ((m_view.camera.height + kTileSize - 1) / kTileSize);
    return static_cast<std::uint32_t>(std::min<std::size_t>(m_resident, tiles));
  }

  std::size_t memory_bytes() const override {
    return m_geometry.bytes() + m_material.bytes() + m_lights.bytes() + m_dormant.bytes() + m_nodes.bytes() +
           m_order.bytes() +
           m_curves.bytes() + m_tile_offsets.bytes() + m_tile_ids.bytes() + m_pair_slot.bytes() +
           m_segments.bytes() + m_tile_order.bytes() + m_values.bytes() + m_ids.bytes() + m_grad.bytes() +
           m_missing.bytes() + m_acc.workspace_bytes();
  }

 private:
  void upload_layout(const BackwardLayout& L) {
    if (m_layout_version == L.version) return;
    upload(m_curves, L.edges.curves);
    upload(m_tile_offsets, L.tiles.offsets);
    upload(m_tile_ids, L.tiles.ids);
    upload(m_pair_slot, L.owned.pair_slot);
    upload(m_segments, L.owned.segments);
    upload(m_tile_order, L.owned.tile_order);
    m_layout_version = L.version;
  }

  // Records of one chunk of tile rows at a time (at most kRecordBudget), reduced into an extra-row gradient
  // whose last row takes the sentinel records.
  void sort_reduce(const RenderSettings& st, const GradientSettings& gs, const BackwardLayout& L,
                   cuda_backend::InteriorArgs in, cuda_backend::EdgeArgs edge, float* d_params, BackwardStats& stats) {
    const std::size_t n = static_cast<std::size_t>(m_view.num_spheres);
    m_grad.reset((n + 1) * kSphereParams, Device::Cuda);
    m_grad.zero();
    if (gs.interior) {
      const std::size_t per_pixel = static_cast<std::size_t>(st.spp) * in.slots;
      const int rows = tile_rows_per_chunk(m_view.camera.width, per_pixel);
      for (int ty = 0; ty < L.tiles.tiles_y; ty += rows) {
        const int ty1 = std::min(L.tiles.tiles_y, ty + rows);
        in.first_tile = ty * L.tiles.tiles_x;
        in.num_tiles = (ty1 - ty) * L.tiles.tiles_x;
        const std::size_t count = static_cast<std::size_t>(in.num_tiles) * kTileSize * kTileSize * per_pixel;
        reserve_records(count, in.ids, in.values);
        cuda_backend::launch_interior(Sink::Records, in);
        reduce_records(count, stats);
        ++stats.record_chunks;
      }
    }
    if (edge.total > 0) {  // two record slots per sample: spheres a and b of its curve
      const std::size_t count = 2 * static_cast<std::size_t>(edge.total);
      reserve_records(count, edge.ids, edge.values);
      cuda_backend::launch_edges(Sink::Records, edge);
      reduce_records(count, stats);
    }
    TG_CUDA_CHECK(cudaMemcpyAsync(d_params, m_grad.data(), sizeof(float) * n * kSphereParams, cudaMemcpyDeviceToDevice));
  }

  void reserve_records(std::size_t count, std::uint32_t*& ids, float*& values) {
    grow(m_ids, count);
    grow(m_values, count * kSphereParams);
    ids = m_ids.data();
    values = m_values.data();
  }

  void reduce_records(std::size_t count, BackwardStats& stats) {
    stats.record_bytes = std::max(stats.record_bytes, count * (sizeof(std::uint32_t) + kSphereParams * sizeof(float)));
    Contributions c;
    c.ids = View<const std::uint32_t>(m_ids.data(), count, Device::Cuda);
    c.values = View<const float>(m_values.data(), count * kSphereParams, Device::Cuda);
    c.width = kSphereParams;
    m_acc.accumulate(Accumulation::SortReduce, c, m_grad.view(), {false});
  }

  void owned(const GradientSettings& gs, const BackwardLayout& L, cuda_backend::InteriorArgs in,
             cuda_backend::EdgeArgs edge, float* d_params, BackwardStats& stats) {
    const std::size_t rows = L.owned.rows();
    grow(m_values, rows * kSphereParams);
    // Each kernel writes every slot it owns; a switched-off term leaves zeros.
    if (!gs.interior || edge.total == 0)
      TG_CUDA_CHECK(cudaMemsetAsync(m_values.data(), 0, sizeof(float) * rows * kSphereParams));
    stats.record_bytes = rows * kSphereParams * sizeof(float);
    stats.owned_blocks = L.owned.block_rows;
    stats.layout_bytes = m_tile_offsets.bytes() + m_tile_ids.bytes() + m_pair_slot.bytes() + m_segments.bytes() +
                         m_tile_order.bytes() + m_curves.bytes();
    edge.owned = m_values.data();
    const bool check_tables = gs.interior && L.owned.block_rows == 0;  // block rows index spheres directly
    if (gs.interior) {
      // The edge pass writes rows of its own: it runs beside the interior pass on a second stream (with few
      // spheres its few blocks would otherwise run alone after it), once the work queued before (the last
      // call's sum reading these rows) is done; the sum waits for both. The interior pass is queued first.
      std::optional<cuda::SideBranch> side;
      if (edge.total > 0) side.emplace(cudaStream_t{0});
      if (check_tables && m_missing.empty()) {  // cleared once here, and again only after it was found set
        m_missing.reset(1, Device::Cuda);
        m_missing.zero();
      }
      in.tile_offsets = m_tile_offsets.data();
      in.tile_ids = m_tile_ids.data();
      in.pair_slot = m_pair_slot.data();
      in.owned = m_values.data();
      in.missing = m_missing.data();
      in.block_rows = L.owned.block_rows;
      in.segments = m_segments.data();
      in.tile_order = m_tile_order.data();
      cuda_backend::launch_interior(Sink::Owned, in);
      if (side) {
        cuda_backend::launch_edges(Sink::Owned, edge, side->stream());
        side->join();
      }
    } else {
      cuda_backend::launch_edges(Sink::Owned, edge);
    }
    TG_CUDA_CHECK(cudaMemsetAsync(d_params, 0, sizeof(float) * m_view.num_spheres * kSphereParams));
    AccumulateOptions sum_options;
    sum_options.check = false;
    sum_options.max_segment_rows = L.owned.max_rows;
    m_acc.segmented_sum(View<const float>(m_values.data(), rows * kSphereParams, Device::Cuda), kSphereParams,
                        m_segments.cview(), View<float>(d_params, static_cast<std::size_t>(m_view.num_spheres) * kSphereParams, Device::Cuda),
                        sum_options);
    // Read after every launch is queued, so that the check does not leave the GPU idle between kernels.
    if (check_tables) {
      const bool missing = m_missing.to_vector()[0] != 0u;
      if (missing) m_missing.zero();
      TG_ASSERT(!missing, "a sample contributed to a sphere its tile does not list");
    }
  }

  Buffer<SphereGeometry<float>> m_geometry;
  Buffer<SphereMaterial<float>> m_material;
  Buffer<std::int32_t> m_lights, m_dormant;
  int m_num_dormant = 0;
  Buffer<BvhNode> m_nodes;
  Buffer<std::uint32_t> m_order;
  SceneView<float> m_view;
  unsigned m_layout_version = 0;
  Buffer<EdgeCurve> m_curves;
  Buffer<std::uint32_t> m_tile_offsets, m_tile_ids, m_pair_slot, m_segments, m_tile_order;
  Buffer<float> m_values, m_grad;
  Buffer<std::uint32_t> m_ids;
  Buffer<unsigned> m_missing;
  Accumulator m_acc{Device::Cuda};
  mutable std::uint32_t m_resident = 0;  // resident blocks of the block-row Owned kernel (once known)
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace tilegrad::pathtracer
