// CUDA exact segmented sum (the reduction of SortReduce and Owned); see exact_sum.h for the arithmetic.
//
// With a caller's bound of at most kShortMax rows per segment: windows of segments (bounded_segments_kernel),
// each summed by a warp or the whole block according to its length, the short ones by a thread per component or
// group of components (tiny_segments_kernel, up to a capacity chosen from the mean length: tiny_cap), the two
// kernels side by side. Otherwise segments are handled by size:
//   tiny   (<= kTinyMax rows): one thread per (segment, component) (exact::sum on the values in registers);
//   single (<= one multi chunk): one warp per segment; up to a register chunk the rows stay in registers (one
//                    read), beyond it the warp reads them twice back to back (the second read hits the cache);
//   multi  (longer): one warp per chunk of rows in two passes (chunk maxima, then chunk integer sums), and one
//                    block per segment to combine its chunks (segment scale, then segment total). A chunk is
//                    kMultiSteps steps of rows, fewer when the whole input is too small to give the GPU's warps
//                    that many chunks (a few long segments: 256-step chains on a handful of warps are bound by
//                    the latency of their loads, not by bandwidth).
// Lane (r, c) = (lane / width, lane % width) handles component c of rows r, r + R, r + 2R, ... (R = 32 / width).
// Work lists come from one prefix sum over packed counts, so no warp searches for its segment. Every
// combination is exact (max, bitwise or, int64 addition): results are identical bits for any launch
// configuration and equal to the CPU backend's.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels.h"
#include "tilegrad/ad/exact_sum.h"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/core/cuda/side_stream.h"

namespace tilegrad::ad::cuda_backend {
namespace {

using cuda::global_thread;
constexpr std::uint32_t kTinyMax = 32;  // rows; longer segments get a warp
constexpr std::uint32_t kShortMax = 2048;  // rows: a known bound at most this takes the one-launch path
constexpr int kRegs = 32;               // values per lane held in registers by a single-chunk warp
constexpr int kMultiSteps = 256;        // steps of R rows per multi chunk (at most)
constexpr int kMinMultiSteps = 8;       // ... and at least
constexpr std::size_t kTargetChunks = 2048;  // shorter chunks until the input has this many
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
// Rows per multi chunk for count rows in all (the same for every segment of one call).
std::uint32_t multi_rows(std::size_t count, int width) {
  const std::size_t per_step = 32 / width;
  const std::size_t steps = count / (per_step * kTargetChunks);
  return static_cast<std::uint32_t>(per_step * std::clamp<std::size_t>(steps, kMinMultiSteps, kMultiSteps));
}

// Calls f(x) for component c of rows first, first + stride, ... below end. The loads go in batches of
// kBatchLoads issued together (slots past the end read as 0, which no maximum, flag or integer sum notices),
// so a batch waits on memory once instead of once per load.
constexpr int kBatchLoads = 8;
template <class F>
__device__ void for_each_value(const Rows& rows, std::uint32_t first, std::uint32_t end, std::uint32_t stride, int c,
                               const F& f) {
  for (std::uint64_t i0 = first; i0 < end; i0 += std::uint64_t(kBatchLoads) * stride) {
    float x[kBatchLoads];
#pragma unroll
    for (int k = 0; k < kBatchLoads; ++k) {
      const std::uint64_t i = i0 + std::uint64_t(k) * stride;
      x[k] = i < end ? rows.at(std::uint32_t(i), c) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < kBatchLoads; ++k) f(x[k]);
  }
}

// Combines one component's per-lane values over the rows of a step (tree over r); every lane (r, c)
// receives the total of component c.
template <class T, class Op>
__device__ T combine_rows(T v, const LaneLayout& l, int width, Op op) {
  for (int step = 1; step < l.per_step; step <<= 1) {
    const T other = __shfl_down_sync(kFullMask, v, step * width);
    if ((l.r & (2 * step - 1)) == 0 && l.r + step < l.per_step) v = op(v, other);  // step: a power of 2
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

// The first pass of exact::sum over one component's values: their largest magnitude, and whether each is finite
// (one comparison per value, as in exact::sum). Which non-finite values there are (the flags) takes a pass of its
// own (note), run only where some value of the warp's segment is not finite (over_rows), so finite input pays
// nothing for it.
struct Probe {
  float max_abs = 0.0f;
  bool finite = true;
  unsigned flags = 0;  // non-zero only where note found a non-finite value
  __device__ void add(float x) {
    const float a = fabsf(x);
    max_abs = fmaxf(max_abs, a);
    finite = finite & exact::finite_magnitude(a);
  }
  __device__ void note(float x) { flags |= exact::nonfinite_flags(x); }
  __device__ void merge(float other_max, unsigned other_flags) {
    max_abs = fmaxf(max_abs, other_max);
    flags |= other_flags;
  }
  // Over the rows of a step: every lane (r, c) gets component c's probe (combine_rows). Where a lane of the warp
  // saw a value that is not finite (a uniform branch), for_each(f) calls f on each of the lane's values again,
  // and the flags are combined too.
  template <class ForEach>
  __device__ Probe over_rows(const LaneLayout& l, int width, const ForEach& for_each) const {
    Probe p;
    p.max_abs = combine_rows(max_abs, l, width, MaxOp{});
    if (!__all_sync(kFullMask, finite)) {
      for_each([&](float x) { p.note(x); });
      p.flags = combine_rows(p.flags, l, width, OrOp{});
    }
    return p;
  }
  // Whether the integer pass has anything to add: every value finite and not all of them zero (zeros sum to +0).
  __device__ bool integer_pass() const { return flags == 0 && max_abs > 0.0f; }
  __device__ float result(long long sum, int scale) const {
    return flags ? exact::nonfinite_result(flags) : exact::dequantize(sum, scale);
  }
};

// Where a segment's result goes: added to grad[s] ([segments, width]), or (overwrite) stored there as v + 0,
// the bits of adding v into +0 (a -0 becomes +0, a NaN the GPU's canonical NaN), without reading grad.
// Overwrite also stores +0 for empty segments (by the tiny path, which takes lengths 0 to its capacity), so every
// row is written exactly once: longer segments are written once by their warp, block or multi-chunk combination
// (the chunk partials go to workspace, never to grad).
struct Output {
  float* grad;
  int width;
  bool overwrite;
  __device__ void write(std::size_t s, int c, float v) const {
    float& dst = grad[s * width + c];
    if (overwrite) dst = v + 0.0f;
    else dst += v;
  }
  // Whether a segment of len rows has a result to write from a tiny path of capacity cap (empty segments only
  // when overwriting).
  __device__ bool writes_tiny(std::uint32_t len, std::uint32_t cap) const {
    return len <= cap && (len >= 1 || overwrite);
  }
};

// Components c0 .. c0 + K - 1 (those below the width) of segment s (len <= CAP rows from begin) summed by one
// thread: the values are read once into registers (all K x len loads first), then both passes of exact::sum run
// on each component's values.
template <std::uint32_t CAP, int K>
__device__ void tiny_components_sum(const Rows& rows, const Output& out, std::size_t s, int c0, std::uint32_t begin,
                                    std::uint32_t len) {
  float x[K][CAP];
#pragma unroll
  for (std::uint32_t i = 0; i < CAP; ++i) {
    if (i >= len) break;
#pragma unroll
    for (int j = 0; j < K; ++j) x[j][i] = c0 + j < rows.width ? rows.at(begin + i, c0 + j) : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < K; ++j) {
    if (c0 + j < rows.width) out.write(s, c0 + j, exact::sum<CAP>([&](std::uint32_t i) { return x[j][i]; }, len));
  }
}

// Segments of 1 to CAP rows (0 to CAP when overwriting), a thread per (segment, K components): blocks of
// ceil(width / K) x (kBlock / ceil(width / K)) threads, threadIdx.x the component group and threadIdx.y the
// segment within the block (no division by the width). K > 1 shares a thread's fixed work (its segment's offsets,
// the length test, the addresses) between K components. CAP (<= kTinyMax) and K set the registers a thread holds
// its values in, and so how many warps fit on an SM (see launch_tiny).
// long_too: no other launch follows (a caller's bound of at most CAP rows), so a longer segment, which only a
// wrong bound lets through, is summed here too: by its thread, reading its values twice (the same bits, slowly).
template <std::uint32_t CAP, int K>
__global__ void tiny_segments_kernel(Rows rows, const std::uint32_t* offsets, std::size_t num_segments,
                                     bool long_too, Output out) {
  const std::size_t s = std::size_t(blockIdx.x) * blockDim.y + threadIdx.y;
  const int c0 = int(threadIdx.x) * K;
  if (s >= num_segments) return;
  const std::uint32_t begin = offsets[s], len = offsets[s + 1] - begin;
  if (out.writes_tiny(len, CAP)) {
    tiny_components_sum<CAP, K>(rows, out, s, c0, begin, len);
  } else if (long_too && len > CAP) {
    for (int c = c0; c < c0 + K && c < rows.width; ++c)
      out.write(s, c, exact::sum([&](std::uint32_t i) { return rows.at(begin + i, c); }, len));
  }
}

// Segment s (rows [begin, end)) summed by one warp. Up to REGS steps of rows the values stay in registers (one
// read); longer segments are read twice back to back (the second read hits the cache).
template <int REGS = kRegs>
__device__ void warp_segment_sum(const Rows& rows, const Output& out, std::size_t s, std::uint32_t begin,
                                 std::uint32_t end, const LaneLayout& l) {
  const int width = rows.width;
  const int steps = int((end - begin + l.per_step - 1) / l.per_step);  // uniform over the warp
  Probe probe;
  long long sum = 0;
  int scale = 0;
  if (steps > REGS) {
    auto each = [&](const auto& f) {
      if (l.active) for_each_value(rows, begin + l.r, end, l.per_step, l.c, f);
    };
    each([&](float x) { probe.add(x); });
    probe = probe.over_rows(l, width, each);
    scale = exact::scale_exponent(probe.max_abs, end - begin);
    if (l.active && probe.integer_pass()) {
      for_each_value(rows, begin + l.r, end, l.per_step, l.c, [&](float x) { sum += exact::quantize(x, scale); });
    }
  } else {
    // All loads first, then the arithmetic: a load and its use in one guarded step would make each load wait
    // for the one before it.
    float x[REGS];
#pragma unroll
    for (int q = 0; q < REGS; ++q) {
      if (q >= steps) break;
      const std::uint32_t i = begin + l.r + q * l.per_step;
      x[q] = (l.active && i < end) ? rows.at(i, l.c) : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < REGS; ++q) {
      if (q >= steps) break;
      probe.add(x[q]);
    }
    probe = probe.over_rows(l, width, [&](const auto& f) {
#pragma unroll
      for (int q = 0; q < REGS; ++q) {
        if (q >= steps) break;
        f(x[q]);
      }
    });
    scale = exact::scale_exponent(probe.max_abs, end - begin);
    if (probe.integer_pass()) {
#pragma unroll
      for (int q = 0; q < REGS; ++q) {
        if (q >= steps) break;
        sum += exact::quantize(x[q], scale);  // padding zeros add nothing
      }
    }
  }
  sum = combine_rows(sum, l, width, AddOp{});
  if (l.active && l.r == 0) out.write(s, l.c, probe.result(sum, scale));
}

// Per-warp partial results of a block, combined in warp order by block_combine.
struct BlockScratch {
  float max_abs[32][32];
  unsigned flags[32][32];
  long long sum[32][32];
};
// Combines the warps' values of each component in warp order (op: maximum, or, integer sum); every lane (r, c)
// of every warp gets component c's result. Lanes with r = 0 contribute their warp's value.
template <class T, class Op>
__device__ T block_combine(T v, T (&slots)[32][32], const LaneLayout& l, Op op) {
  const int warp = threadIdx.x / cuda::kWarpSize, warps = blockDim.x / cuda::kWarpSize;
  if (l.active && l.r == 0) slots[warp][l.c] = v;
  __syncthreads();
  T total = slots[0][l.c];
  for (int w = 1; w < warps; ++w) total = op(total, slots[w][l.c]);
  __syncthreads();  // the slots are rewritten by the next combination
  return total;
}

// Segment s summed by the whole block: warps stride over its rows (maximum, then integer sum, each combined
// over the warps; the flags only where a warp found a value that is not finite). Every thread of the block must
// call it.
__device__ void block_segment_sum(const Rows& rows, const Output& out, std::size_t s, std::uint32_t begin,
                                  std::uint32_t end, const LaneLayout& l, BlockScratch& scratch) {
  const int width = rows.width;
  const int warp = threadIdx.x / cuda::kWarpSize, warps = blockDim.x / cuda::kWarpSize;
  const std::uint32_t stride = warps * l.per_step, first = begin + warp * l.per_step + l.r;
  auto each = [&](const auto& f) {
    if (l.active) for_each_value(rows, first, end, stride, l.c, f);
  };
  Probe warp_probe;
  each([&](float x) { warp_probe.add(x); });
  warp_probe = warp_probe.over_rows(l, width, each);
  // The warps' maxima, and whether any warp has flags, behind one barrier; the next barrier (the flags', or the
  // sums' combination) comes before any thread rewrites the maxima.
  if (l.active && l.r == 0) scratch.max_abs[warp][l.c] = warp_probe.max_abs;
  const bool any_flags = __syncthreads_or(warp_probe.flags != 0);
  Probe probe;
  for (int w = 0; w < warps; ++w) probe.max_abs = fmaxf(probe.max_abs, scratch.max_abs[w][l.c]);
  if (any_flags) probe.flags = block_combine(warp_probe.flags, scratch.flags, l, OrOp{});  // uniform
  const int scale = exact::scale_exponent(probe.max_abs, end - begin);
  long long sum = 0;
  if (l.active && probe.integer_pass()) {
    for_each_value(rows, first, end, stride, l.c, [&](float x) { sum += exact::quantize(x, scale); });
  }
  sum = block_combine(combine_rows(sum, l, width, AddOp{}), scratch.sum, l, AddOp{});
  if (threadIdx.x < width) out.write(s, l.c, probe.result(sum, scale));
}

// Segments of at most kShortMax rows (a caller's bound). Each block takes a window of `window` consecutive
// segments and gives each the smallest worker that suits it: a thread per component up to tiny_max rows (few
// segments only), a warp up to Form::kWarpSteps steps of rows, else the whole block. Two forms (Form below):
//   many segments (WINDOWS): windows of up to max_window segments in blocks of bounded_block threads, the
//     segments of at most tiny_max rows left to tiny_segments_kernel (a block's phases would wait on each other),
//     which runs beside this one on a side branch of the stream;
//   few segments: one per block of kShortBlock threads, tiny ones included (one launch, tiny_max = kTinyMax).
// See segmented_sum.
constexpr unsigned kShortBlock = 1024;
constexpr std::uint32_t kWindow = 256;
// The windows' form has no thread-per-component path, and its warps hold 16 steps of rows in registers and read
// segments of 17 to 64 steps twice: 48 registers a thread, so five blocks of 256 threads fit on an SM where the
// few segments' form (64 registers) fits four. Its block-wide path starts above 64 steps (192 rows of 9 values),
// not above the register capacity: a block walks its window's long segments one after the other, four barriers
// each, while its warps take theirs side by side. Measured on the garden grids (H200, Owned records, reduction
// ms at G = 1 / 5 / 15): 0.0500 / 0.0949 / 0.324 with the few segments' form in windows, 0.0466 / 0.0924 / 0.312
// with this one; with 32 steps in registers and the block path from 64 steps 0.0471 / 0.0926, with 16 steps and
// the block path from 32 steps 0.0507 / 0.0934 (docs/PERFORMANCE.md).
template <bool WINDOWS>
struct Form {
  static constexpr unsigned kMaxThreads = WINDOWS ? 256 : kShortBlock;
  static constexpr int kMinBlocks = WINDOWS ? 5 : 1;
  static constexpr int kRegs = WINDOWS ? 16 : cuda_backend::kRegs;
  static constexpr int kWarpSteps = WINDOWS ? 64 : cuda_backend::kRegs;
};
template <bool WINDOWS>
__global__ void __launch_bounds__(Form<WINDOWS>::kMaxThreads, Form<WINDOWS>::kMinBlocks)
    bounded_segments_kernel(Rows rows, const std::uint32_t* offsets, std::size_t num_segments, std::uint32_t window,
                            std::uint32_t tiny_max, Output out) {
  __shared__ BlockScratch scratch;
  __shared__ std::uint32_t s_warp[kWindow], s_block[kWindow];
  __shared__ unsigned s_counts[2];
  const int width = rows.width;
  const LaneLayout l = lane_layout(width);
  const int warp = threadIdx.x / cuda::kWarpSize, warps = blockDim.x / cuda::kWarpSize;
  const std::uint32_t warp_rows = std::uint32_t(Form<WINDOWS>::kWarpSteps * l.per_step);
  const std::size_t first = std::size_t(blockIdx.x) * window;
  const std::uint32_t in_window = std::uint32_t(min(std::size_t(window), num_segments - first));
  if (threadIdx.x < 2) s_counts[threadIdx.x] = 0;
  __syncthreads();
  // Lists of the window's warp and block segments (their order does not matter: each is summed alone).
  if (threadIdx.x < in_window) {
    const std::size_t s = first + threadIdx.x;
    const std::uint32_t len = offsets[s + 1] - offsets[s];
    if (len > warp_rows) s_block[atomicAdd(&s_counts[1], 1u)] = std::uint32_t(threadIdx.x);
    else if (len > tiny_max) s_warp[atomicAdd(&s_counts[0], 1u)] = std::uint32_t(threadIdx.x);
  }
  // Tiny segments: a thread per (segment, component), the values in registers.
  for (std::uint32_t k = threadIdx.x; !WINDOWS && k < in_window * width; k += blockDim.x) {
    const std::size_t s = first + k / width;
    const int c = int(k % width);
    const std::uint32_t begin = offsets[s], len = offsets[s + 1] - begin;
    if (out.writes_tiny(len, kTinyMax)) tiny_components_sum<kTinyMax, 1>(rows, out, s, c, begin, len);
  }
  __syncthreads();
  for (unsigned i = warp; i < s_counts[0]; i += warps) {
    const std::size_t s = first + s_warp[i];
    warp_segment_sum<Form<WINDOWS>::kRegs>(rows, out, s, offsets[s], offsets[s + 1], l);
  }
  for (unsigned i = 0; i < s_counts[1]; ++i) {  // uniform over the block
    const std::size_t s = first + s_block[i];
    block_segment_sum(rows, out, s, offsets[s], offsets[s + 1], l, scratch);
  }
}

// counts[s] = (single-chunk ? 1 : 0) | (chunks of a multi-chunk segment) << 32; counts[num_segments] = 0.
// Segments shorter than min_rows get no task (the tiny kernel or the caller handles them).
__global__ void count_tasks_kernel(const std::uint32_t* offsets, std::size_t num_segments, std::uint32_t chunk_rows,
                                   std::uint32_t min_rows, unsigned long long* counts) {
  const std::size_t s = global_thread();
  if (s > num_segments) return;
  unsigned long long packed = 0;
  if (s < num_segments) {
    const std::uint32_t len = offsets[s + 1] - offsets[s];
    if (len >= min_rows && len > 0) {
      packed = len <= chunk_rows ? 1ull : static_cast<unsigned long long>((len + chunk_rows - 1) / chunk_rows) << 32;
    }
  }
  counts[s] = packed;
}

__global__ void mark_tasks_kernel(const unsigned long long* counts, const unsigned long long* bases,
                                  std::size_t num_segments, std::uint32_t* single_tasks, std::uint32_t* multi_tasks) {
  const std::size_t s = global_thread();
  if (s >= num_segments) return;
  const unsigned long long n = counts[s], base = bases[s];
  if (n & 0xFFFFFFFFull) single_tasks[base & 0xFFFFFFFFull] = static_cast<std::uint32_t>(s);
  if (n >> 32) multi_tasks[base >> 32] = static_cast<std::uint32_t>(s);  // first chunk; a max-scan fills the rest
}

struct Plan {
  Rows rows;
  std::uint32_t chunk_rows;          // rows per multi chunk
  const std::uint32_t* offsets;
  const unsigned long long* bases;   // [num_segments + 1] exclusive scan of the packed counts
  std::size_t num_segments;
  const std::uint32_t* single_tasks; // segment of each single task
  const std::uint32_t* multi_tasks;  // segment of each multi chunk
  float* chunk_max;                  // [multi chunks * width]
  unsigned* chunk_flags;             // idem; at a segment's first chunk: the segment's flags (after scale)
  int* chunk_scale;                  // at a segment's first chunk: the segment's scale exponent
  long long* chunk_sum;              // [multi chunks * width]
  Output out;

  __device__ std::uint32_t single_count() const { return static_cast<std::uint32_t>(bases[num_segments]); }
  __device__ std::uint32_t multi_count() const { return static_cast<std::uint32_t>(bases[num_segments] >> 32); }
};

struct Chunk {
  std::size_t segment;
  std::uint32_t first, count;  // the segment's first multi-chunk index and its number of chunks
  std::uint32_t seg_begin, seg_end, begin, end;
};
__device__ Chunk multi_chunk(const Plan& p, std::uint32_t k) {
  Chunk ch;
  ch.segment = p.multi_tasks[k];
  ch.first = static_cast<std::uint32_t>(p.bases[ch.segment] >> 32);
  ch.count = static_cast<std::uint32_t>(p.bases[ch.segment + 1] >> 32) - ch.first;
  ch.seg_begin = p.offsets[ch.segment];
  ch.seg_end = p.offsets[ch.segment + 1];
  ch.begin = ch.seg_begin + (k - ch.first) * p.chunk_rows;
  ch.end = min(ch.begin + p.chunk_rows, ch.seg_end);
  return ch;
}

#define TG_FOR_EACH_WARP_TASK(count)                                                  \
  const std::uint32_t task_count_ = (count);                                         \
  const std::uint32_t warps_ = gridDim.x * blockDim.x / cuda::kWarpSize;             \
  for (std::uint32_t t = static_cast<std::uint32_t>(global_thread() / cuda::kWarpSize); t < task_count_; t += warps_)

// Segments of up to one multi chunk, one warp each (warp_segment_sum).
__global__ void single_chunk_kernel(Plan p) {
  const LaneLayout l = lane_layout(p.rows.width);
  TG_FOR_EACH_WARP_TASK(p.single_count()) {
    const std::size_t s = p.single_tasks[t];
    warp_segment_sum(p.rows, p.out, s, p.offsets[s], p.offsets[s + 1], l);
  }
}

__global__ void multi_chunk_max_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.multi_count()) {
    const Chunk ch = multi_chunk(p, t);
    auto each = [&](const auto& f) {
      if (l.active) for_each_value(p.rows, ch.begin + l.r, ch.end, l.per_step, l.c, f);
    };
    Probe probe;
    each([&](float x) { probe.add(x); });
    probe = probe.over_rows(l, width, each);
    if (l.active && l.r == 0) {
      p.chunk_max[std::size_t(t) * width + l.c] = probe.max_abs;
      p.chunk_flags[std::size_t(t) * width + l.c] = probe.flags;
    }
  }
}

__global__ void multi_chunk_sum_kernel(Plan p) {
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  TG_FOR_EACH_WARP_TASK(p.multi_count()) {
    const Chunk ch = multi_chunk(p, t);
    const std::size_t at = std::size_t(ch.first) * width + l.c;
    long long sum = 0;
    if (l.active && p.chunk_flags[at] == 0) {
      const int scale = p.chunk_scale[at];
      for_each_value(p.rows, ch.begin + l.r, ch.end, l.per_step, l.c, [&](float x) { sum += exact::quantize(x, scale); });
    }
    sum = combine_rows(sum, l, width, AddOp{});
    if (l.active && l.r == 0) p.chunk_sum[std::size_t(t) * width + l.c] = sum;
  }
}
#undef TG_FOR_EACH_WARP_TASK

// Combines a multi segment's chunk records with a whole block: warps stride over chunks, then the warps'
// results are combined through shared memory. FINAL = false: maxima -> scale; true: sums -> result.
template <bool FINAL>
__global__ void multi_segment_kernel(Plan p) {
  __shared__ float s_max[kBlock / 32][32];
  __shared__ unsigned s_flags[kBlock / 32][32];
  __shared__ long long s_sum[kBlock / 32][32];
  const int width = p.rows.width;
  const LaneLayout l = lane_layout(width);
  const int warp = threadIdx.x / cuda::kWarpSize, warps = blockDim.x / cuda::kWarpSize;
  const std::uint32_t total = p.multi_count();
  for (std::uint32_t k = blockIdx.x; k < total; k += gridDim.x) {
    const Chunk ch = multi_chunk(p, k);
    if (k != ch.first) continue;  // one block per segment, at its first chunk (uniform over the block)
    Probe probe;
    long long sum = 0;
    if (l.active) {
      for (std::uint32_t j = warp * l.per_step + l.r; j < ch.count; j += warps * l.per_step) {
        const std::size_t at = std::size_t(k + j) * width + l.c;
        if (FINAL) {
          sum += p.chunk_sum[at];
        } else {
          probe.merge(p.chunk_max[at], p.chunk_flags[at]);
        }
      }
    }
    if (FINAL) {
      sum = combine_rows(sum, l, width, AddOp{});
    } else {
      probe.max_abs = combine_rows(probe.max_abs, l, width, MaxOp{});  // the chunks' flags are known: no reread
      probe.flags = combine_rows(probe.flags, l, width, OrOp{});
    }
    if (l.active && l.r == 0) {
      s_max[warp][l.c] = probe.max_abs;
      s_flags[warp][l.c] = probe.flags;
      s_sum[warp][l.c] = sum;
    }
    __syncthreads();
    if (threadIdx.x < width) {
      const int c = threadIdx.x;
      const std::size_t at = std::size_t(k) * width + c;
      if (FINAL) {
        long long total_sum = 0;
        for (int w = 0; w < warps; ++w) total_sum += s_sum[w][c];
        const unsigned f = p.chunk_flags[at];
        p.out.write(ch.segment, c, f ? exact::nonfinite_result(f) : exact::dequantize(total_sum, p.chunk_scale[at]));
      } else {
        Probe segment;
        for (int w = 0; w < warps; ++w) segment.merge(s_max[w][c], s_flags[w][c]);
        p.chunk_scale[at] = exact::scale_exponent(segment.max_abs, ch.seg_end - ch.seg_begin);
        p.chunk_flags[at] = segment.flags;
      }
    }
    __syncthreads();
  }
}

// The tiny kernel's capacity for segments of count / num_segments rows on average: 8, 16 or kTinyMax rows
// in registers (3 components per thread at capacity 8, see launch_tiny: 48, 32 and 48 registers per thread, so 5, 8
// and 5 blocks of about kBlock threads per SM). The kernel is
// bound by each thread's two dependent loads (offsets, then values), so more resident warps shorten it; the
// segments above the capacity go to the bounded kernel's warps instead. Measured on the garden grids (H100,
// Owned records, reduction ms for capacity 32 / 16 / 8): 2.35 rows on average (grid 15) 0.756 / 0.608 / 0.557,
// 5.7 rows (grid 5) 0.158 / 0.148 / 0.154, 25 rows (grid 1) 0.080 / 0.086 / 0.097. The sums are exact, so the
// capacity changes no bit of the result.
std::uint32_t tiny_cap(std::size_t count, std::size_t num_segments) {
  if (count <= 4 * num_segments) return 8;
  if (count <= 12 * num_segments) return 16;
  return kTinyMax;
}
// The bounded kernel's largest window: with short segments on average (capacity 8) few of a window's segments
// reach it, so windows of kWindow segments keep its blocks busy (garden grid 15: 250 -> 166 us under ncu);
// with longer ones (capacity 16 or more) 64-segment windows balance better (grid 5: 256 measured slower).
std::uint32_t max_window(std::uint32_t cap) { return cap <= 8 ? kWindow : 64; }
// The bounded kernel's block: at capacity 16 its segments are mostly warp-sized (17 to 96 rows), and 128 threads
// balance them better than 256 (garden grid 5: 0.110 -> 0.099 ms for the reduction); with longer segments
// (capacity 32, grid 1) more warps shorten the block-wide ones (128 / 256 / 512 threads: 0.058 / 0.052 / 0.060 ms),
// and at capacity 8 (grid 15) 256 threads classify a whole window (512: 0.380 -> 0.424 ms).
unsigned bounded_block(std::uint32_t cap) { return cap == 16 ? 128 : 256; }
template <std::uint32_t CAP, int K>
void launch_tiny_kernel(cudaStream_t stream, const Rows& rows, const std::uint32_t* offsets, std::size_t num_segments,
                        bool long_too, const Output& out) {
  const unsigned groups = unsigned((rows.width + K - 1) / K);
  const dim3 block{groups, kBlock / groups};
  const std::size_t blocks = (num_segments + block.y - 1) / block.y;
  TG_ASSERT(blocks <= 0x7FFFFFFFu, "segmented sum: too many segments: ", num_segments);
  tiny_segments_kernel<CAP, K><<<dim3{unsigned(blocks)}, block, 0, stream>>>(rows, offsets, num_segments, long_too,
                                                                             out);
  TG_CUDA_CHECK_LAUNCH();
}
// Capacity 8 gives each thread 3 components (48 registers): at 2.35 rows per segment (garden grid 15) the kernel is
// bound by issue, and a third of the threads share what each did alone (0.380 -> 0.354 ms for the reduction;
// 2 components: 0.362). With longer segments the extra registers cost more warps than the shared work saves
// (capacity 16, grid 5: 0.109 ms with 1 component, 0.123 with 2, 0.126 with 3).
void launch_tiny(std::uint32_t cap, cudaStream_t stream, const Rows& rows, const std::uint32_t* offsets,
                 std::size_t num_segments, bool long_too, const Output& out) {
  switch (cap) {
    case 8: launch_tiny_kernel<8, 3>(stream, rows, offsets, num_segments, long_too, out); break;
    case 16: launch_tiny_kernel<16, 1>(stream, rows, offsets, num_segments, long_too, out); break;
    default: launch_tiny_kernel<kTinyMax, 1>(stream, rows, offsets, num_segments, long_too, out); break;
  }
}

// Shared driver: tasks for segments of at least min_rows rows, then the single and multi paths.
void run_plan(const Rows& rows, const std::uint32_t* offsets, std::size_t num_segments, std::size_t count,
              std::uint32_t min_rows, const Output& out, Workspace& ws, cudaStream_t stream) {
  const int width = rows.width;
  TG_ASSERT(width >= 1 && width <= cuda::kWarpSize, "segmented sum: row width ", width, " not in [1, 32]");
  // Bounds known on the host: single tasks <= segments of at least max(min_rows, 1) rows; a multi segment
  // (longer than a multi chunk) has at most len / chunk_rows + 1 < 2 len / chunk_rows chunks.
  const std::size_t max_single = std::min(num_segments, count / std::max<std::uint32_t>(min_rows, 1));
  const std::uint32_t chunk_rows = multi_rows(count, width);
  const std::size_t max_multi = 2 * (count / chunk_rows) + 1;
  auto* counts = ws.slot<unsigned long long>(Slot::ChunkCounts, num_segments + 1);
  auto* bases = ws.slot<unsigned long long>(Slot::ChunkBase, num_segments + 1);
  cuda::launch(count_tasks_kernel, num_segments + 1, kBlock, stream, offsets, num_segments, chunk_rows, min_rows, counts);
  std::size_t scan_bytes = 0, max_scan_bytes = 0;
  auto* multi_tasks = ws.slot<std::uint32_t>(Slot::MultiTasks, max_multi);
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, bases, int(num_segments + 1), stream));
  TG_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, max_scan_bytes, multi_tasks, multi_tasks, MaxU32{},
                                               int(max_multi), stream));
  void* scan_temp = ws.slot<std::byte>(Slot::ScanTemp, std::max(scan_bytes, max_scan_bytes));
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, bases, int(num_segments + 1), stream));
  TG_CUDA_CHECK(cudaMemsetAsync(multi_tasks, 0, max_multi * sizeof(std::uint32_t), stream));
  auto* single_tasks = ws.slot<std::uint32_t>(Slot::SingleTasks, std::max<std::size_t>(max_single, 1));
  cuda::launch(mark_tasks_kernel, num_segments, kBlock, stream, counts, bases, num_segments, single_tasks,
               multi_tasks);
  TG_CUDA_CHECK(cub::DeviceScan::InclusiveScan(scan_temp, max_scan_bytes, multi_tasks, multi_tasks, MaxU32{},
                                               int(max_multi), stream));

  Plan p{rows, chunk_rows, offsets, bases, num_segments, single_tasks, multi_tasks,
         ws.slot<float>(Slot::ChunkMax, max_multi * width),
         ws.slot<unsigned>(Slot::ChunkFlags, max_multi * width),
         ws.slot<int>(Slot::ChunkScale, max_multi * width),
         ws.slot<long long>(Slot::ChunkSum, max_multi * width),
         out};
  const unsigned single_grid = cuda::persistent_blocks(max_single * cuda::kWarpSize, kBlock);
  const unsigned multi_grid = cuda::persistent_blocks(max_multi * cuda::kWarpSize, kBlock);
  const unsigned segment_grid = cuda::persistent_blocks(max_multi * kBlock, kBlock);
  single_chunk_kernel<<<single_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_chunk_max_kernel<<<multi_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_segment_kernel<false><<<segment_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_chunk_sum_kernel<<<multi_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
  multi_segment_kernel<true><<<segment_grid, kBlock, 0, stream>>>(p);
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace

void segmented_sum(const float* values, const std::uint32_t* perm, const std::uint32_t* offsets,
                   std::size_t num_segments, std::size_t count, int width, float* grad, Workspace& ws,
                   cudaStream_t stream, std::uint32_t max_rows, bool overwrite) {
  if (num_segments == 0) return;
  if (count == 0) {  // every segment empty: nothing to add, or +0 everywhere
    if (overwrite) TG_CUDA_CHECK(cudaMemsetAsync(grad, 0, num_segments * width * sizeof(float), stream));
    return;
  }
  TG_ASSERT(num_segments < static_cast<std::size_t>(INT_MAX), "too many segments: ", num_segments);
  TG_ASSERT(width >= 1 && width <= cuda::kWarpSize, "segmented sum: row width ", width, " not in [1, 32]");
  const Rows rows{values, perm, width};
  const Output out{grad, width, overwrite};
  if (max_rows > 0 && max_rows <= kShortMax) {
    // Windows of segments when there are enough of them to fill the GPU several times over; otherwise a large
    // block per segment, which keeps the chain of loads of a long segment short.
    const std::size_t per_window = num_segments / (std::size_t(cuda::sm_count()) * 8);
    std::uint32_t cap = tiny_cap(count, num_segments);
    const std::uint32_t window = std::uint32_t(std::clamp<std::size_t>(per_window, 1, max_window(cap)));
    const bool few = window == 1;
    if (few) cap = kTinyMax;
    const bool tiny_only = !few && max_rows <= cap;
    const unsigned bounded_grid = unsigned((num_segments + window - 1) / window);
    if (few) {  // one launch: a block per segment, the tiny ones included
      bounded_segments_kernel<false><<<bounded_grid, kShortBlock, 0, stream>>>(rows, offsets, num_segments, window, cap,
                                                                               out);
      TG_CUDA_CHECK_LAUNCH();
      return;
    }
    if (tiny_only) {
      launch_tiny(cap, stream, rows, offsets, num_segments, true, out);
      return;
    }
    // The two kernels sum disjoint segments, and neither fills the GPU to the end alone (the bounded kernel's
    // last blocks walk long segments): they run side by side, the short segments' on a side branch.
    cuda::SideBranch side(stream);
    const unsigned block = bounded_block(cap);
    TG_ASSERT(window <= block && block <= Form<true>::kMaxThreads, "segmented sum: a window of ", window,
              " segments in blocks of ", block);
    bounded_segments_kernel<true><<<bounded_grid, block, 0, stream>>>(rows, offsets, num_segments, window, cap, out);
    TG_CUDA_CHECK_LAUNCH();
    launch_tiny(cap, side.stream(), rows, offsets, num_segments, false, out);
    side.join();
    return;
  }
  launch_tiny(kTinyMax, stream, rows, offsets, num_segments, false, out);
  run_plan(rows, offsets, num_segments, count, kTinyMax + 1, out, ws, stream);
}

}  // namespace tilegrad::ad::cuda_backend
