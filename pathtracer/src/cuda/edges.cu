// CUDA boundary backward: one thread per edge sample (samples of a curve are contiguous), the rows of the
// curve's one or two spheres from the shared edge-sampling code, handed on through the chosen sink. For
// Owned a warp is one chunk of samples (kEdgeChunk): it sums each curve's rows over its lanes and writes them
// to the curve's row of that chunk in each sphere's segment (no atomics; every chunk row written once).
#include <cstdint>

#include "kernels.h"
#include "tilegrad/ad/cuda/accumulate_device.cuh"
#include "tilegrad/ad/cuda/warp_sum_by_key.cuh"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/pathtracer/edge_sample.h"

namespace tilegrad::pathtracer::cuda_backend {
namespace {

constexpr unsigned kBlock = 128;

// Curve whose samples hold index i: the last curve with first <= i.
__device__ inline int curve_of(const EdgeCurve* curves, int n, std::uint32_t i) {
  int lo = 0, hi = n;
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (curves[mid].first <= i) lo = mid;
    else hi = mid;
  }
  return lo;
}

__device__ inline void zero_row(float* row) {
#pragma unroll
  for (int c = 0; c < kSphereParams; ++c) row[c] = 0.0f;
}

template <Sink SINK>
__global__ void __launch_bounds__(kBlock) edge_kernel(EdgeArgs a) {
  static_assert(kBlock % kEdgeChunk == 0 && kEdgeChunk == 32, "an Owned chunk is one warp");
  const std::uint32_t i = blockIdx.x * kBlock + threadIdx.x;
  const bool in_range = i < a.total;
  EdgeRows<float> rows;
  EdgeCurve e;
  std::uint32_t k = 0, curve = 0xFFFFFFFFu;  // no curve past the last sample
  if (in_range) {
    curve = static_cast<std::uint32_t>(curve_of(a.curves, a.num_curves, i));
    e = a.curves[curve];
    k = i - e.first;
    rows = edge_sample(a.scene, a.settings, e, static_cast<int>(k), a.d_image);
  }
  if (!rows.has_a) zero_row(rows.a);
  if (!rows.has_b) zero_row(rows.b);
  const auto ida = static_cast<std::uint32_t>(e.a), idb = static_cast<std::uint32_t>(e.b);
  if constexpr (SINK == Sink::Atomic) {
    if (rows.has_a) cuda::atomic_add_row(a.grad, ida, rows.a, kSphereParams);
    if (rows.has_b) cuda::atomic_add_row(a.grad, idb, rows.b, kSphereParams);
  } else if constexpr (SINK == Sink::WarpAggregated) {
    cuda::warp_aggregated_add_row(a.grad, ida, rows.a, kSphereParams, rows.has_a);
    cuda::warp_aggregated_add_row(a.grad, rows.has_b ? idb : 0u, rows.b, kSphereParams, rows.has_b);
  } else if constexpr (SINK == Sink::Records) {
    if (!in_range) return;
    a.ids[2 * i] = rows.has_a ? ida : a.sentinel;
    a.ids[2 * i + 1] = rows.has_b ? idb : a.sentinel;
    float* dst = a.values + 2 * static_cast<std::size_t>(i) * kSphereParams;
#pragma unroll
    for (int c = 0; c < kSphereParams; ++c) {
      dst[c] = rows.a[c];
      dst[kSphereParams + c] = rows.b[c];
    }
  } else {  // all lanes: the sums are collective
    const std::size_t chunk = edge_chunk(e, k);
    float* da = a.owned + (e.row_a + chunk) * kSphereParams;
    float* db = e.b >= 0 ? a.owned + (e.row_b + chunk) * kSphereParams : nullptr;
    cuda::warp_sum_by_key(curve, rows.a, [&](int c, float v) {
      if (in_range) da[c] = v;
    });
    cuda::warp_sum_by_key(curve, rows.b, [&](int c, float v) {
      if (in_range && db) db[c] = v;
    });
  }
}

}  // namespace

void launch_edges(Sink sink, const EdgeArgs& a, cudaStream_t stream) {
  if (a.total == 0) return;
  const unsigned blocks = cuda::blocks_for(a.total, kBlock);
  switch (sink) {
    case Sink::Atomic: edge_kernel<Sink::Atomic><<<blocks, kBlock, 0, stream>>>(a); break;
    case Sink::WarpAggregated: edge_kernel<Sink::WarpAggregated><<<blocks, kBlock, 0, stream>>>(a); break;
    case Sink::Records: edge_kernel<Sink::Records><<<blocks, kBlock, 0, stream>>>(a); break;
    case Sink::Owned: edge_kernel<Sink::Owned><<<blocks, kBlock, 0, stream>>>(a); break;
  }
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::pathtracer::cuda_backend
