// CUDA exact segmented sum (the reduction of SortReduce and Owned). Segments of at most kShortMax rows are
// summed by one thread per (segment, component); longer ones are split into chunks of kChunkRows rows,
// one warp per chunk, in four passes: chunk maxima -> segment scale -> chunk integer sums -> segment total.
// Every combination is exact (max, bitwise or, int64 addition), so results are identical bits for any
// launch configuration and equal to the CPU backend's (exact_sum.h).
#include <cub/device/device_scan.cuh>

#include <climits>
#include <cstdint>

#include "kernels.h"
#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::ad_backend::cuda_impl {
namespace {

using cuda::global_thread;
constexpr std::uint32_t kShortMax = 128;   // longer segments take the chunked path
constexpr std::uint32_t kChunkRows = 1024; // rows per chunk (one warp)
constexpr unsigned kBlock = 256;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

struct Rows {
  const float* values;
  const std::uint32_t* perm;  // null: identity
  int width;
  __device__ float at(std::uint32_t i, int c) const {
    const std::size_t row = perm ? perm[i] : i;
    return values[row * width + c];
  }
};

// A warp covers `per_step` rows at once: lane = r * width + c handles row r of each step, component c.
struct LaneLayout {
  int per_step, r, c;
  bool active;
};
__device__ LaneLayout lane_layout(int width) {
  const int lane = static_cast<int>(cuda::lane_id());
  const int per_step = cuda::kWarpSize / width;
  return {per_step, lane / width, lane % width, lane / width < per_step};
}

// Combines the per-lane values of one component across the rows of a step (tree over r); lane c ends
// with the total. Op must be exact (max, or, integer +) for the result to be order-independent.
template <class T, class Op>
__device__ T combine_rows(T v, const LaneLayout& l, int width, Op op) {
  for (int step = 1; step < l.per_step; step <<= 1) {
    const T other = __shfl_down_sync(kFullMask, v, step * width);
    if (l.r % (2 * step) == 0 && l.r + step < l.per_step) v = op(v, other);
  }
  return v;
}
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct OrOp {
  __device__ unsigned operator()(unsigned a, unsigned b) const { return a | b; }
};
struct AddOp {
  __device__ long long operator()(long long a, long long b) const { return a + b; }
};

// Last segment s with base[s] <= k (segments with no chunks share their base with the next one).
__device__ std::size_t segment_of_chunk(const std::uint32_t* base, std::size_t num_segments, std::uint32_t k) {
  std::size_t lo = 0, hi = num_segments;
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (base[mid] <= k) lo = mid; else hi = mid;
  }
  return lo;
}

__global__ void short_segments_kernel(Rows rows, const std::uint32_t* offsets, std::size_t num_segments,
                                      float* grad) {
  const std::size_t t = global_thread();
  const std::size_t s = t / rows.width;
  const int c = static_cast<int>(t % rows.width);
  if (s >= num_segments) return;
  const std::uint32_t begin = offsets[s], end = offsets[s + 1];
  if (begin == end || end - begin > kShortMax) return;
  float max_abs = 0.0f;
  unsigned flags = 0;
  for (std::uint32_t i = begin; i < end; ++i) {
    const float x = rows.at(i, c);
    flags |= exact::nonfinite_flags(x);
    max_abs = fmaxf(max_abs, fabsf(x));
  }
  float result;
  if (flags) {
    result = exact::nonfinite_result(flags);
  } else {
    const int k = exact::scale_exponent(max_abs, end - begin);
    long long sum = 0;
    for (std::uint32_t i = begin; i < end; ++i) sum += exact::quantize(rows.at(i, c), k);
    result = exact::dequantize(sum, k);
  }
  grad[t] += result;
}

__global__ void count_chunks_kernel(const std::uint32_t* offsets, std::size_t num_segments, std::uint32_t* counts) {
  const std::size_t s = global_thread();
  if (s > num_segments) return;
  std::uint32_t n = 0;
  if (s < num_segments) {
    const std::uint32_t len = offsets[s + 1] - offsets[s];
    n = len > kShortMax ? (len + kChunkRows - 1) / kChunkRows : 0;
  }
  counts[s] = n;
}

struct ChunkArgs {
  Rows rows;
  const std::uint32_t* offsets;
  const std::uint32_t* base;  // [num_segments + 1] first chunk of each segment; base[num_segments] = total
  std::size_t num_segments;
  float* chunk_max;           // [chunks * width]
  unsigned* chunk_flags;      // [chunks * width]; at a segment's first chunk: the segment's flags (after pass 2)
  int* chunk_scale;           // at a segment's first chunk: the segment's scale exponent
  long long* chunk_sum;       // [chunks * width]
};

struct ChunkSpan {
  std::size_t segment;
  std::uint32_t first_chunk, chunks, begin, end;  // rows [begin, end) of this chunk
};
__device__ ChunkSpan chunk_span(const ChunkArgs& a, std::uint32_t k) {
  ChunkSpan sp;
  sp.segment = segment_of_chunk(a.base, a.num_segments, k);
  sp.first_chunk = a.base[sp.segment];
  sp.chunks = a.base[sp.segment + 1] - sp.first_chunk;
  sp.begin = a.offsets[sp.segment] + (k - sp.first_chunk) * kChunkRows;
  sp.end = min(sp.begin + kChunkRows, a.offsets[sp.segment + 1]);
  return sp;
}

// The four passes are one kernel each; every warp walks the chunks grid-stride (the chunk count is read on
// the device, so the host never waits for it).
#define TG_FOR_EACH_CHUNK(a)                                                                         \
  const std::uint32_t total_chunks_ = (a).base[(a).num_segments];                                   \
  const std::uint32_t warps_ = gridDim.x * blockDim.x / cuda::kWarpSize;                            \
  for (std::uint32_t k = static_cast<std::uint32_t>(global_thread() / cuda::kWarpSize); k < total_chunks_; k += warps_)

__global__ void chunk_max_kernel(ChunkArgs a) {
  const int width = a.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_CHUNK(a) {
    const ChunkSpan sp = chunk_span(a, k);
    float max_abs = 0.0f;
    unsigned flags = 0;
    if (l.active) {
#pragma unroll 4
      for (std::uint32_t i = sp.begin + l.r; i < sp.end; i += l.per_step) {
        const float x = a.rows.at(i, l.c);
        flags |= exact::nonfinite_flags(x);
        max_abs = fmaxf(max_abs, fabsf(x));
      }
    }
    max_abs = combine_rows(max_abs, l, width, MaxOp{});
    flags = combine_rows(flags, l, width, OrOp{});
    if (l.active && l.r == 0) {
      a.chunk_max[std::size_t(k) * width + l.c] = max_abs;
      a.chunk_flags[std::size_t(k) * width + l.c] = flags;
    }
  }
}

__global__ void segment_scale_kernel(ChunkArgs a) {
  const int width = a.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_CHUNK(a) {
    const ChunkSpan sp = chunk_span(a, k);
    if (k != sp.first_chunk) continue;  // one warp per segment
    float max_abs = 0.0f;
    unsigned flags = 0;
    if (l.active) {
      for (std::uint32_t j = l.r; j < sp.chunks; j += l.per_step) {
        max_abs = fmaxf(max_abs, a.chunk_max[std::size_t(k + j) * width + l.c]);
        flags |= a.chunk_flags[std::size_t(k + j) * width + l.c];
      }
    }
    max_abs = combine_rows(max_abs, l, width, MaxOp{});
    flags = combine_rows(flags, l, width, OrOp{});
    if (l.active && l.r == 0) {
      const std::uint32_t len = a.offsets[sp.segment + 1] - a.offsets[sp.segment];
      a.chunk_scale[std::size_t(k) * width + l.c] = exact::scale_exponent(max_abs, len);
      a.chunk_flags[std::size_t(k) * width + l.c] = flags;
    }
  }
}

__global__ void chunk_sum_kernel(ChunkArgs a) {
  const int width = a.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_CHUNK(a) {
    const ChunkSpan sp = chunk_span(a, k);
    long long sum = 0;
    if (l.active && a.chunk_flags[std::size_t(sp.first_chunk) * width + l.c] == 0) {
      const int scale = a.chunk_scale[std::size_t(sp.first_chunk) * width + l.c];
#pragma unroll 4
      for (std::uint32_t i = sp.begin + l.r; i < sp.end; i += l.per_step)
        sum += exact::quantize(a.rows.at(i, l.c), scale);
    }
    sum = combine_rows(sum, l, width, AddOp{});
    if (l.active && l.r == 0) a.chunk_sum[std::size_t(k) * width + l.c] = sum;
  }
}

__global__ void segment_total_kernel(ChunkArgs a, float* grad) {
  const int width = a.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_CHUNK(a) {
    const ChunkSpan sp = chunk_span(a, k);
    if (k != sp.first_chunk) continue;
    long long sum = 0;
    if (l.active)
      for (std::uint32_t j = l.r; j < sp.chunks; j += l.per_step) sum += a.chunk_sum[std::size_t(k + j) * width + l.c];
    sum = combine_rows(sum, l, width, AddOp{});
    if (l.active && l.r == 0) {
      const std::size_t at = std::size_t(k) * width + l.c;
      const unsigned flags = a.chunk_flags[at];
      grad[sp.segment * width + l.c] +=
          flags ? exact::nonfinite_result(flags) : exact::dequantize(sum, a.chunk_scale[at]);
    }
  }
}
#undef TG_FOR_EACH_CHUNK

}  // namespace

void segmented_sum(const float* values, const std::uint32_t* perm, const std::uint32_t* offsets,
                   std::size_t num_segments, std::size_t count, int width, float* grad, Workspace& ws,
                   cudaStream_t stream) {
  if (num_segments == 0 || count == 0) return;
  TG_ASSERT(num_segments < static_cast<std::size_t>(INT_MAX), "too many segments: ", num_segments);
  const Rows rows{values, perm, width};
  cuda::launch(short_segments_kernel, num_segments * width, kBlock, stream, rows, offsets, num_segments, grad);

  // Chunk plan for long segments. The host only knows a bound on the number of chunks.
  const std::size_t max_chunks = count / kChunkRows + count / (kShortMax + 1) + 1;
  std::uint32_t* counts = ws.slot<std::uint32_t>(kSlotChunkCounts, num_segments + 1);
  std::uint32_t* base = ws.slot<std::uint32_t>(kSlotChunkBase, num_segments + 1);
  cuda::launch(count_chunks_kernel, num_segments + 1, kBlock, stream, offsets, num_segments, counts);
  std::size_t scan_bytes = 0;
  const int scan_items = static_cast<int>(num_segments + 1);
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, base, scan_items, stream));
  void* scan_temp = ws.slot<std::byte>(kSlotScanTemp, scan_bytes);
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, base, scan_items, stream));

  ChunkArgs a{rows, offsets, base, num_segments,
              ws.slot<float>(kSlotChunkMax, max_chunks * width),
              ws.slot<unsigned>(kSlotChunkFlags, max_chunks * width),
              ws.slot<int>(kSlotChunkScale, max_chunks * width),
              ws.slot<long long>(kSlotChunkSum, max_chunks * width)};
  const unsigned grid = cuda::persistent_blocks(max_chunks * cuda::kWarpSize, kBlock);
  chunk_max_kernel<<<grid, kBlock, 0, stream>>>(a);
  TG_CUDA_CHECK_LAUNCH();
  segment_scale_kernel<<<grid, kBlock, 0, stream>>>(a);
  TG_CUDA_CHECK_LAUNCH();
  chunk_sum_kernel<<<grid, kBlock, 0, stream>>>(a);
  TG_CUDA_CHECK_LAUNCH();
  segment_total_kernel<<<grid, kBlock, 0, stream>>>(a, grad);
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::ad_backend::cuda_impl
