// CUDA exact segmented sum (the reduction of SortReduce and Owned); see exact_sum.h for the arithmetic.
//
// Segments are handled by size:
//   tiny   (<= kTinyMax rows): one thread per (segment, component), values read from cache twice;
//   single (fits one chunk):   one warp per segment, the chunk held in registers: one read of the data;
//   multi  (several chunks):   one warp per chunk in four passes (chunk maxima -> segment scale ->
//                              chunk integer sums -> segment total): two reads of the data.
// A chunk is kRegs * (32 / width) rows: lane (r, c) = (lane / width, lane % width) holds component c of
// rows r, r + R, r + 2R, ... with R = 32 / width. Work lists come from one prefix sum over packed counts,
// so no warp searches for its segment. Every combination is exact (max, bitwise or, int64 addition):
// results are identical bits for any launch configuration and equal to the CPU backend's.
#include <cub/device/device_scan.cuh>

#include <climits>
#include <cstdint>

#include "kernels.h"
#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::ad_backend::cuda_impl {
namespace {

using cuda::global_thread;
constexpr std::uint32_t kTinyMax = 8;  // rows; longer segments get a warp
constexpr int kRegs = 32;              // values per lane held in registers
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

struct LaneLayout {
  int per_step, r, c;
  bool active;
};
__device__ LaneLayout lane_layout(int width) {
  const int lane = static_cast<int>(cuda::lane_id());
  const int per_step = cuda::kWarpSize / width;
  return {per_step, lane / width, lane % width, lane / width < per_step};
}
__host__ __device__ inline std::uint32_t rows_per_chunk(int width) {
  return static_cast<std::uint32_t>(kRegs * (32 / width));
}

// Combines one component's per-lane values over the rows of a step (tree over r); lane c ends with the
// total and every lane (r, c) receives it.
template <class T, class Op>
__device__ T combine_rows(T v, const LaneLayout& l, int width, Op op) {
  for (int step = 1; step < l.per_step; step <<= 1) {
    const T other = __shfl_down_sync(kFullMask, v, step * width);
    if (l.r % (2 * step) == 0 && l.r + step < l.per_step) v = op(v, other);
  }
  return __shfl_sync(kFullMask, v, l.c);
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
struct MaxU32 {
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a > b ? a : b; }
};

__global__ void tiny_segments_kernel(Rows rows, const std::uint32_t* offsets, std::size_t num_segments,
                                     float* grad) {
  const std::size_t t = global_thread();
  const std::size_t s = t / rows.width;
  const int c = static_cast<int>(t % rows.width);
  if (s >= num_segments) return;
  const std::uint32_t begin = offsets[s], end = offsets[s + 1];
  if (begin == end || end - begin > kTinyMax) return;
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

// counts[s] = (single-chunk ? 1 : 0) | (chunks of a multi-chunk segment) << 32; counts[num_segments] = 0.
__global__ void count_tasks_kernel(const std::uint32_t* offsets, std::size_t num_segments, int width,
                                   unsigned long long* counts) {
  const std::size_t s = global_thread();
  if (s > num_segments) return;
  unsigned long long packed = 0;
  if (s < num_segments) {
    const std::uint32_t len = offsets[s + 1] - offsets[s];
    const std::uint32_t chunks = (len + rows_per_chunk(width) - 1) / rows_per_chunk(width);
    if (len > kTinyMax) packed = chunks == 1 ? 1ull : static_cast<unsigned long long>(chunks) << 32;
  }
  counts[s] = packed;
}

// Single-chunk segments get task base_single[s]; the first chunk of a multi-chunk segment is marked at
// base_multi[s] (a max-scan then gives every chunk its segment).
__global__ void mark_tasks_kernel(const unsigned long long* counts, const unsigned long long* bases,
                                  std::size_t num_segments, std::uint32_t* single_tasks, std::uint32_t* multi_tasks) {
  const std::size_t s = global_thread();
  if (s >= num_segments) return;
  const unsigned long long n = counts[s], base = bases[s];
  if (n & 0xFFFFFFFFull) single_tasks[base & 0xFFFFFFFFull] = static_cast<std::uint32_t>(s);
  if (n >> 32) multi_tasks[base >> 32] = static_cast<std::uint32_t>(s);
}

struct Plan {
  Rows rows;
  const std::uint32_t* offsets;
  const unsigned long long* bases;   // [num_segments + 1] exclusive scan of the packed counts
  std::size_t num_segments;
  const std::uint32_t* single_tasks; // segment of each single task
  const std::uint32_t* multi_tasks;  // segment of each multi chunk
  float* chunk_max;                  // [multi chunks * width]
  unsigned* chunk_flags;             // idem; at a segment's first chunk: the segment's flags (after scale)
  int* chunk_scale;                  // at a segment's first chunk: the segment's scale exponent
  long long* chunk_sum;              // [multi chunks * width]
  float* grad;

  __device__ std::uint32_t single_count() const { return static_cast<std::uint32_t>(bases[num_segments]); }
  __device__ std::uint32_t multi_count() const { return static_cast<std::uint32_t>(bases[num_segments] >> 32); }
};

struct Chunk {
  std::size_t segment;
  std::uint32_t first, count;  // the segment's first multi-chunk index and its number of chunks
  std::uint32_t seg_begin, seg_end, begin, end;
};
__device__ Chunk single_chunk(const Plan& p, std::uint32_t t) {
  Chunk ch;
  ch.segment = p.single_tasks[t];
  ch.first = t;
  ch.count = 1;
  ch.seg_begin = ch.begin = p.offsets[ch.segment];
  ch.seg_end = ch.end = p.offsets[ch.segment + 1];
  return ch;
}
__device__ Chunk multi_chunk(const Plan& p, std::uint32_t k) {
  Chunk ch;
  ch.segment = p.multi_tasks[k];
  ch.first = static_cast<std::uint32_t>(p.bases[ch.segment] >> 32);
  ch.count = static_cast<std::uint32_t>(p.bases[ch.segment + 1] >> 32) - ch.first;
  ch.seg_begin = p.offsets[ch.segment];
  ch.seg_end = p.offsets[ch.segment + 1];
  ch.begin = ch.seg_begin + (k - ch.first) * rows_per_chunk(p.rows.width);
  ch.end = min(ch.begin + rows_per_chunk(p.rows.width), ch.seg_end);
  return ch;
}

// The chunk's values of this lane, loaded once (zeros where past the end).
struct LaneValues {
  float x[kRegs];
  __device__ void load(const Rows& rows, const Chunk& ch, const LaneLayout& l) {
#pragma unroll
    for (int q = 0; q < kRegs; ++q) {
      const std::uint32_t i = ch.begin + l.r + q * l.per_step;
      x[q] = (l.active && i < ch.end) ? rows.at(i, l.c) : 0.0f;
    }
  }
  __device__ void max_and_flags(const LaneLayout& l, int width, float& max_abs, unsigned& flags) const {
    max_abs = 0.0f;
    flags = 0;
#pragma unroll
    for (int q = 0; q < kRegs; ++q) {
      flags |= exact::nonfinite_flags(x[q]);
      max_abs = fmaxf(max_abs, fabsf(x[q]));
    }
    max_abs = combine_rows(max_abs, l, width, MaxOp{});
    flags = combine_rows(flags, l, width, OrOp{});
  }
  __device__ long long quantized_sum(const LaneLayout& l, int width, int scale) const {
    long long sum = 0;
#pragma unroll
    for (int q = 0; q < kRegs; ++q) sum += exact::quantize(x[q], scale);  // zeros add nothing
    return combine_rows(sum, l, width, AddOp{});
  }
};

#define TG_FOR_EACH_WARP_TASK(count)                                                  \
  const std::uint32_t task_count_ = (count);                                         \
  const std::uint32_t warps_ = gridDim.x * blockDim.x / cuda::kWarpSize;             \
  for (std::uint32_t t = static_cast<std::uint32_t>(global_thread() / cuda::kWarpSize); t < task_count_; t += warps_)

// Single-chunk segments, finished in one read.
__global__ void single_chunk_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.single_count()) {
    const Chunk ch = single_chunk(p, t);
    LaneValues v;
    v.load(p.rows, ch, l);
    float max_abs;
    unsigned flags;
    v.max_and_flags(l, width, max_abs, flags);
    const int scale = exact::scale_exponent(max_abs, ch.seg_end - ch.seg_begin);
    const long long sum = v.quantized_sum(l, width, flags ? 0 : scale);
    if (l.active && l.r == 0)
      p.grad[ch.segment * width + l.c] += flags ? exact::nonfinite_result(flags) : exact::dequantize(sum, scale);
  }
}

__global__ void multi_chunk_max_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.multi_count()) {
    const Chunk ch = multi_chunk(p, t);
    LaneValues v;
    v.load(p.rows, ch, l);
    float max_abs;
    unsigned flags;
    v.max_and_flags(l, width, max_abs, flags);
    if (l.active && l.r == 0) {
      p.chunk_max[std::size_t(t) * width + l.c] = max_abs;
      p.chunk_flags[std::size_t(t) * width + l.c] = flags;
    }
  }
}

// One warp per multi-chunk segment (at its first chunk) combines the chunk maxima into the segment scale.
__global__ void multi_scale_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.multi_count()) {
    const Chunk ch = multi_chunk(p, t);
    if (t != ch.first) continue;
    float max_abs = 0.0f;
    unsigned flags = 0;
    if (l.active) {
      for (std::uint32_t j = l.r; j < ch.count; j += l.per_step) {
        max_abs = fmaxf(max_abs, p.chunk_max[std::size_t(t + j) * width + l.c]);
        flags |= p.chunk_flags[std::size_t(t + j) * width + l.c];
      }
    }
    max_abs = combine_rows(max_abs, l, width, MaxOp{});
    flags = combine_rows(flags, l, width, OrOp{});
    if (l.active && l.r == 0) {
      p.chunk_scale[std::size_t(t) * width + l.c] = exact::scale_exponent(max_abs, ch.seg_end - ch.seg_begin);
      p.chunk_flags[std::size_t(t) * width + l.c] = flags;
    }
  }
}

__global__ void multi_chunk_sum_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.multi_count()) {
    const Chunk ch = multi_chunk(p, t);
    const std::size_t at = std::size_t(ch.first) * width + l.c;
    const bool finite = !l.active || p.chunk_flags[at] == 0;
    LaneValues v;
    v.load(p.rows, ch, l);
    const long long sum = v.quantized_sum(l, width, finite && l.active ? p.chunk_scale[at] : 0);
    if (l.active && l.r == 0) p.chunk_sum[std::size_t(t) * width + l.c] = sum;
  }
}

__global__ void multi_total_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.multi_count()) {
    const Chunk ch = multi_chunk(p, t);
    if (t != ch.first) continue;
    long long sum = 0;
    if (l.active)
      for (std::uint32_t j = l.r; j < ch.count; j += l.per_step) sum += p.chunk_sum[std::size_t(t + j) * width + l.c];
    sum = combine_rows(sum, l, width, AddOp{});
    if (l.active && l.r == 0) {
      const std::size_t at = std::size_t(t) * width + l.c;
      const unsigned flags = p.chunk_flags[at];
      p.grad[ch.segment * width + l.c] += flags ? exact::nonfinite_result(flags) : exact::dequantize(sum, p.chunk_scale[at]);
    }
  }
}
#undef TG_FOR_EACH_WARP_TASK

}  // namespace

void segmented_sum(const float* values, const std::uint32_t* perm, const std::uint32_t* offsets,
                   std::size_t num_segments, std::size_t count, int width, float* grad, Workspace& ws,
                   cudaStream_t stream) {
  if (num_segments == 0 || count == 0) return;
  TG_ASSERT(num_segments < static_cast<std::size_t>(INT_MAX), "too many segments: ", num_segments);
  const Rows rows{values, perm, width};
  cuda::launch(tiny_segments_kernel, num_segments * width, kBlock, stream, rows, offsets, num_segments, grad);

  // Task lists. Bounds known on the host: single tasks <= segments longer than kTinyMax; multi chunks <=
  // count / rows_per_chunk + number of multi segments (each longer than one chunk).
  const std::size_t max_single = std::min(num_segments, count / (kTinyMax + 1));
  const std::size_t max_multi = 2 * (count / rows_per_chunk(width)) + 1;
  auto* counts = ws.slot<unsigned long long>(kSlotChunkCounts, num_segments + 1);
  auto* bases = ws.slot<unsigned long long>(kSlotChunkBase, num_segments + 1);
  cuda::launch(count_tasks_kernel, num_segments + 1, kBlock, stream, offsets, num_segments, width, counts);
  std::size_t scan_bytes = 0, max_scan_bytes = 0;
  auto* multi_tasks = ws.slot<std::uint32_t>(kSlotMultiTasks, max_multi);
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, bases, int(num_segments + 1), stream));
  TG_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, max_scan_bytes, multi_tasks, multi_tasks, MaxU32{},
                                               int(max_multi), stream));
  void* scan_temp = ws.slot<std::byte>(kSlotScanTemp, std::max(scan_bytes, max_scan_bytes));
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, bases, int(num_segments + 1), stream));
  TG_CUDA_CHECK(cudaMemsetAsync(multi_tasks, 0, max_multi * sizeof(std::uint32_t), stream));
  auto* single_tasks = ws.slot<std::uint32_t>(kSlotSingleTasks, std::max<std::size_t>(max_single, 1));
  cuda::launch(mark_tasks_kernel, num_segments, kBlock, stream, counts, bases, num_segments, single_tasks,
               multi_tasks);
  TG_CUDA_CHECK(cub::DeviceScan::InclusiveScan(scan_temp, max_scan_bytes, multi_tasks, multi_tasks, MaxU32{},
                                               int(max_multi), stream));

  Plan p{rows, offsets, bases, num_segments, single_tasks, multi_tasks,
         ws.slot<float>(kSlotChunkMax, max_multi * width),
         ws.slot<unsigned>(kSlotChunkFlags, max_multi * width),
         ws.slot<int>(kSlotChunkScale, max_multi * width),
         ws.slot<long long>(kSlotChunkSum, max_multi * width),
         grad};
  const unsigned single_grid = cuda::persistent_blocks(max_single * cuda::kWarpSize, kBlock);
  const unsigned multi_grid = cuda::persistent_blocks(max_multi * cuda::kWarpSize, kBlock);
  single_chunk_kernel<<<single_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_chunk_max_kernel<<<multi_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_scale_kernel<<<multi_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_chunk_sum_kernel<<<multi_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_total_kernel<<<multi_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::ad_backend::cuda_impl
