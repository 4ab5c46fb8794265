// CPU reference of the accumulation strategies (OpenMP where it pays). Atomic and WarpAggregated add in a
// thread-dependent order, like their CUDA twins; SortReduce and Owned use the exact segmented sum.
#include <algorithm>
#include <vector>

#include "../backend.h"
#include "segment_sum_cpu.h"

namespace tilegrad::ad::cpu_backend {
namespace {

constexpr std::size_t kWarp = 32;  // group size of the CPU WarpAggregated emulation
constexpr std::ptrdiff_t kParallelMin = 4096;  // smaller loops run on one thread (threads would only spin)

unsigned check_ids(const Problem& p) {
  for (std::size_t i = 0; i < p.count; ++i)
    if (p.ids[i] >= p.num_params) return kIdOutOfRange;
  return 0;
}

unsigned check_offsets(const Problem& p) {
  if (p.offsets[0] != 0 || p.offsets[p.num_params] != p.count) return kBadOffsets;
  for (std::size_t s = 0; s < p.num_params; ++s)
    if (p.offsets[s + 1] < p.offsets[s]) return kBadOffsets;
  if (p.ids) {
    for (std::size_t s = 0; s < p.num_params; ++s)
      for (std::uint32_t i = p.offsets[s]; i < p.offsets[s + 1]; ++i)
        if (p.ids[i] != s) return kIdOutsideSegment;
  }
  return 0;
}

void add_atomic(float* dst, float x) {
#pragma omp atomic
  *dst += x;
}

void atomic(const Problem& p) {
  const auto n = static_cast<std::ptrdiff_t>(p.count);
  const std::size_t w = static_cast<std::size_t>(p.width);
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < w; ++c) add_atomic(&p.grad[p.ids[i] * w + c], p.values[i * w + c]);
}

// Emulates a warp: each group of 32 consecutive records combines equal ids (in lane order) before adding.
void warp_aggregated(const Problem& p) {
  const std::size_t w = static_cast<std::size_t>(p.width);
  const auto groups = static_cast<std::ptrdiff_t>((p.count + kWarp - 1) / kWarp);
#pragma omp parallel for schedule(static) if (groups > kParallelMin / 32)
  for (std::ptrdiff_t g = 0; g < groups; ++g) {
    const std::size_t begin = static_cast<std::size_t>(g) * kWarp, end = std::min(p.count, begin + kWarp);
    for (std::size_t i = begin; i < end; ++i) {
      bool leader = true;
      for (std::size_t j = begin; j < i && leader; ++j) leader = p.ids[j] != p.ids[i];
      if (!leader) continue;
      for (std::size_t c = 0; c < w; ++c) {
        float s = 0.0f;
        for (std::size_t j = i; j < end; ++j)
          if (p.ids[j] == p.ids[i]) s += p.values[j * w + c];
        add_atomic(&p.grad[p.ids[i] * w + c], s);
      }
    }
  }
}

void segment_sums(const Problem& p, const std::uint32_t* offsets, const std::uint32_t* perm) {
  const auto segments = static_cast<std::ptrdiff_t>(p.num_params);
  const std::size_t w = static_cast<std::size_t>(p.width);
#pragma omp parallel for schedule(dynamic, 256) if (segments > kParallelMin)
  for (std::ptrdiff_t s = 0; s < segments; ++s) {
    const std::uint32_t begin = offsets[s], end = offsets[s + 1];
    float* row = p.grad + static_cast<std::size_t>(s) * w;
    if (p.overwrite) {  // + 0: the bits of adding into +0 (a -0 sum becomes +0); an empty segment writes +0
      for (std::size_t c = 0; c < w; ++c)
        row[c] = (begin == end ? 0.0f : exact_segment_sum(p.values, p.width, static_cast<int>(c), perm, begin, end)) +
                 0.0f;
      continue;
    }
    if (begin == end) continue;
    for (std::size_t c = 0; c < w; ++c)
      row[c] += exact_segment_sum(p.values, p.width, static_cast<int>(c), perm, begin, end);
  }
}

// Counting sort by id (stable): offsets per parameter and the record permutation.
void sort_reduce(const Problem& p) {
  std::vector<std::uint32_t> offsets(p.num_params + 1, 0), perm(p.count);
  for (std::size_t i = 0; i < p.count; ++i) ++offsets[p.ids[i] + 1];
  for (std::size_t s = 0; s < p.num_params; ++s) offsets[s + 1] += offsets[s];
  std::vector<std::uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < p.count; ++i) perm[cursor[p.ids[i]]++] = static_cast<std::uint32_t>(i);
  segment_sums(p, offsets.data(), perm.data());
}

}  // namespace

unsigned accumulate(Accumulation strategy, const Problem& p) {
  if (p.check) {
    const unsigned errors = strategy == Accumulation::Owned ? check_offsets(p) : check_ids(p);
    if (errors) return errors;
  }
  switch (strategy) {
    case Accumulation::Atomic: atomic(p); break;
    case Accumulation::WarpAggregated: warp_aggregated(p); break;
    case Accumulation::SortReduce: sort_reduce(p); break;
    case Accumulation::Owned: segment_sums(p, p.offsets, nullptr); break;
  }
  return 0;
}

}  // namespace tilegrad::ad::cpu_backend
