// CUDA kernels of kernels.h: one thread per element (row, Gaussian, byte); the bodies are the shared TG_HD
// functions, the arguments __grid_constant__. The flag scan is CUB's, with scratch for the call; the replica hashes'
// sums are grid-stride loops.
#include <cub/device/device_scan.cuh>

#include "../kernels.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::distributed::detail::cuda_backend {
namespace {

constexpr unsigned kBlock = 256;

#define TG_ELEMENT_KERNEL(name, Args, body, count)                      \
  __global__ void name##_kernel(const __grid_constant__ Args a) {      \
    const std::size_t i = cuda::global_thread();                      \
    if (i < (count)) body(a, i);                                      \
  }

TG_ELEMENT_KERNEL(exact_codes, ExactArgs, exact_codes_element, a.n)
TG_ELEMENT_KERNEL(exact_quantize, ExactArgs, exact_quantize_element, a.n)
TG_ELEMENT_KERNEL(exact_dequantize, ExactArgs, exact_dequantize_element, a.n)
TG_ELEMENT_KERNEL(view_stats, ViewStatsArgs, view_stats_element, a.n)
TG_ELEMENT_KERNEL(add_stats, AddStatsArgs, add_stats_element, a.n)
TG_ELEMENT_KERNEL(rects, RectArgs, rect_element, a.n)
TG_ELEMENT_KERNEL(select, SelectArgs, select_element, a.n)
TG_ELEMENT_KERNEL(compact, CompactArgs, compact_element, a.total)
TG_ELEMENT_KERNEL(pack, PackArgs, pack_element, a.rows)
TG_ELEMENT_KERNEL(unpack, UnpackArgs, unpack_element, a.rows)
TG_ELEMENT_KERNEL(crop, CropArgs, crop_element, a.bytes())

// Grid-stride sums of the words' hashes, added into *sum per warp: integer additions commute, so the bits do not
// depend on the order of the atomics.
__global__ void hash_sum_kernel(const __grid_constant__ HashArgs a, unsigned long long* sum) {
  const std::size_t words = a.words();
  unsigned long long s = 0;
  for (std::size_t w = cuda::global_thread(); w < words; w += std::size_t(gridDim.x) * blockDim.x)
    s += hash_word_element(a, w);
  for (int offset = cuda::kWarpSize / 2; offset > 0; offset /= 2) s += __shfl_down_sync(0xFFFFFFFFu, s, offset);
  if (cuda::lane_id() == 0 && s != 0) atomicAdd(sum, s);
}

__global__ void block_starts_kernel(const std::uint32_t* positions, std::size_t n, int ranks, std::uint32_t* out) {
  const int r = int(cuda::global_thread());
  if (r <= ranks) out[r] = positions[std::size_t(r) * n];
}

}  // namespace

void exact_codes(const ExactArgs& a) { cuda::launch(exact_codes_kernel, a.n, kBlock, 0, a); }
void exact_quantize(const ExactArgs& a) { cuda::launch(exact_quantize_kernel, a.n, kBlock, 0, a); }
void exact_dequantize(const ExactArgs& a) { cuda::launch(exact_dequantize_kernel, a.n, kBlock, 0, a); }
void view_stats(const ViewStatsArgs& a) { cuda::launch(view_stats_kernel, a.n, kBlock, 0, a); }
void add_stats(const AddStatsArgs& a) { cuda::launch(add_stats_kernel, a.n, kBlock, 0, a); }
void rects(const RectArgs& a) { cuda::launch(rects_kernel, a.n, kBlock, 0, a); }
void select(const SelectArgs& a) { cuda::launch(select_kernel, a.n, kBlock, 0, a); }
void compact(const CompactArgs& a) { cuda::launch(compact_kernel, a.total, kBlock, 0, a); }
void pack(const PackArgs& a) { cuda::launch(pack_kernel, a.rows, kBlock, 0, a); }
void unpack(const UnpackArgs& a) { cuda::launch(unpack_kernel, a.rows, kBlock, 0, a); }
void crop(const CropArgs& a) { cuda::launch(crop_kernel, a.bytes(), kBlock, 0, a); }

std::vector<std::uint64_t> hash_sums(const std::vector<HashArgs>& arrays) {
  Buffer<unsigned long long> sums(std::max<std::size_t>(arrays.size(), 1), Device::Cuda);
  TG_CUDA_CHECK(cudaMemsetAsync(sums.data(), 0, sums.size() * sizeof(unsigned long long)));
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const std::size_t words = arrays[k].words();
    if (words == 0) continue;
    hash_sum_kernel<<<cuda::persistent_blocks(words, kBlock), kBlock>>>(arrays[k], sums.data() + k);
    TG_CUDA_CHECK_LAUNCH();
  }
  const std::vector<unsigned long long> host = sums.to_vector();
  return std::vector<std::uint64_t>(host.begin(), host.begin() + std::ptrdiff_t(arrays.size()));
}

std::vector<std::uint32_t> scan_flags(std::uint32_t* flags, std::uint32_t* positions, std::size_t n, int ranks) {
  const std::size_t count = n * std::size_t(ranks) + 1;  // the last flag is zero: positions[count - 1] = total
  TG_CHECK_ARG(count < (std::size_t(1) << 31), "too many Gaussians x ranks for one scan: ", count);
  std::size_t bytes = 0;
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, flags, positions, int(count)));
  Buffer<std::byte> temp(bytes > 0 ? bytes : 1, Device::Cuda);
  TG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, flags, positions, int(count)));
  Buffer<std::uint32_t> starts(std::size_t(ranks) + 1, Device::Cuda);
  block_starts_kernel<<<1, kMaxRanks + 1>>>(positions, n, ranks, starts.data());
  TG_CUDA_CHECK_LAUNCH();
  return starts.to_vector();
}

}  // namespace tilegrad::distributed::detail::cuda_backend
