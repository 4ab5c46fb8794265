// CPU loops of kernels.h (OpenMP above a work threshold) and the dispatch to the CUDA kernels.
#include "kernels.h"

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::distributed::detail {

#if TILEGRAD_WITH_CUDA
namespace cuda_backend {
void exact_codes(const ExactArgs& a);
void exact_quantize(const ExactArgs& a);
void exact_dequantize(const ExactArgs& a);
void view_stats(const ViewStatsArgs& a);
void add_stats(const AddStatsArgs& a);
void rects(const RectArgs& a);
void select(const SelectArgs& a);
std::vector<std::uint32_t> scan_flags(std::uint32_t* flags, std::uint32_t* positions, std::size_t n, int ranks);
void compact(const CompactArgs& a);
void pack(const PackArgs& a);
void unpack(const UnpackArgs& a);
void crop(const CropArgs& a);
std::vector<std::uint64_t> hash_sums(const std::vector<HashArgs>& arrays);
}  // namespace cuda_backend
#define TG_ON_CUDA(call) call
#else
#define TG_ON_CUDA(call) throw Unsupported("this build has no CUDA backend")
#endif

namespace {
template <class F>
void for_each(std::size_t n, F&& body) {
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static) if (count > 16384)
  for (std::ptrdiff_t i = 0; i < count; ++i) body(std::size_t(i));
}
}  // namespace

void exact_codes(Device d, const ExactArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::exact_codes(a));
    return;
  }
  for_each(a.n, [&](std::size_t e) { exact_codes_element(a, e); });
}
void exact_quantize(Device d, const ExactArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::exact_quantize(a));
    return;
  }
  for_each(a.n, [&](std::size_t e) { exact_quantize_element(a, e); });
}
void exact_dequantize(Device d, const ExactArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::exact_dequantize(a));
    return;
  }
  for_each(a.n, [&](std::size_t e) { exact_dequantize_element(a, e); });
}
void view_stats(Device d, const ViewStatsArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::view_stats(a));
    return;
  }
  for_each(a.n, [&](std::size_t i) { view_stats_element(a, i); });
}
void add_stats(Device d, const AddStatsArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::add_stats(a));
    return;
  }
  for_each(a.n, [&](std::size_t i) { add_stats_element(a, i); });
}
void rects(Device d, const RectArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::rects(a));
    return;
  }
  for_each(a.n, [&](std::size_t i) { rect_element(a, i); });
}
void select(Device d, const SelectArgs& a) {
  TG_ASSERT(a.ranks <= kMaxRanks, "too many ranks");
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::select(a));
    return;
  }
  for_each(a.n, [&](std::size_t i) { select_element(a, i); });
}

std::vector<std::uint32_t> scan_flags(Device d, std::uint32_t* flags, std::uint32_t* positions, std::size_t n,
                                      int ranks) {
  const std::size_t count = n * std::size_t(ranks);
  if (d == Device::Cuda) {
#if TILEGRAD_WITH_CUDA
    return cuda_backend::scan_flags(flags, positions, n, ranks);
#endif
  }
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < count; ++k) {
    positions[k] = std::uint32_t(total);
    total += flags[k];
  }
  TG_CHECK_ARG(total < (std::uint64_t(1) << 32), "a rank would receive more than 2^32 Gaussians");
  positions[count] = std::uint32_t(total);
  std::vector<std::uint32_t> starts(std::size_t(ranks) + 1);
  for (int r = 0; r <= ranks; ++r) starts[std::size_t(r)] = positions[std::size_t(r) * n];
  return starts;
}

void compact(Device d, const CompactArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::compact(a));
    return;
  }
  for_each(a.total, [&](std::size_t k) { compact_element(a, k); });
}
void pack(Device d, const PackArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::pack(a));
    return;
  }
  for_each(a.rows, [&](std::size_t j) { pack_element(a, j); });
}
void unpack(Device d, const UnpackArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::unpack(a));
    return;
  }
  for_each(a.rows, [&](std::size_t j) { unpack_element(a, j); });
}
void crop(Device d, const CropArgs& a) {
  if (d == Device::Cuda) {
    TG_ON_CUDA(cuda_backend::crop(a));
    return;
  }
  for_each(a.bytes(), [&](std::size_t e) { crop_element(a, e); });
}

std::vector<std::uint64_t> hash_sums(Device d, const std::vector<HashArgs>& arrays) {
  if (d == Device::Cuda) {
#if TILEGRAD_WITH_CUDA
    return cuda_backend::hash_sums(arrays);
#else
    throw Unsupported("this build has no CUDA backend");
#endif
  }
  std::vector<std::uint64_t> sums;
  sums.reserve(arrays.size());
  for (const HashArgs& a : arrays) {
    std::uint64_t sum = 0;  // unsigned: wraps mod 2^64, so the threads' partial sums add up to the same bits
    const auto count = static_cast<std::ptrdiff_t>(a.words());
#pragma omp parallel for schedule(static) reduction(+ : sum) if (count > 16384)
    for (std::ptrdiff_t w = 0; w < count; ++w) sum += hash_word_element(a, std::size_t(w));
    sums.push_back(sum);
  }
  return sums;
}

}  // namespace tilegrad::distributed::detail
