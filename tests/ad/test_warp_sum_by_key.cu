// warp_sum_by_key: every (key, component) of a warp is emitted exactly once, with the float64 sum of the rows
// of that key, on a lane that holds the key; the bits repeat from run to run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "test_support.h"
#include "tilegrad/ad/cuda/warp_sum_by_key.cuh"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/check.h"

using namespace tilegrad;

namespace {

constexpr int kKeys = 8;  // keys of a warp are 0..kKeys-1

// out[(warp * kKeys + key) * W + c]: the sum emitted for (key, c) by a lane that holds the key (a lane of
// another key would write another key's output); emitted[...]: how often.
template <int W>
__global__ void sum_by_key_kernel(const std::uint32_t* keys, const float* rows, float* out, unsigned* emitted) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, warp = t / 32;
  const std::uint32_t key = keys[t];
  float row[W];
  for (int c = 0; c < W; ++c) row[c] = rows[std::size_t(t) * W + c];
  cuda::warp_sum_by_key(key, row, [&](int c, float v) {
    const std::size_t at = (std::size_t(warp) * kKeys + key) * W + c;
    out[at] = v;
    atomicAdd(&emitted[at], 1u);
  });
}

enum class Pattern { OneKey, Runs, Scattered };

template <int W>
void check(Pattern pattern, std::uint64_t seed) {
  const int warps = 128, lanes = warps * 32;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> key(0, kKeys - 1), run(1, 12);
  std::vector<std::uint32_t> keys(lanes);
  for (int l = 0; l < lanes;) {  // one key per warp; runs of 1 to 12 lanes; a random key per lane
    const std::uint32_t k = pattern == Pattern::OneKey ? std::uint32_t(l / 32 % kKeys) : key(rng);
    const int len = pattern == Pattern::OneKey ? 32 : pattern == Pattern::Runs ? int(run(rng)) : 1;
    for (int j = 0; j < len && l < lanes; ++j) keys[l++] = k;
  }
  const auto rows = test::random_floats(std::size_t(lanes) * W, seed + 1);
  const auto d_keys = Buffer<std::uint32_t>::from(keys, Device::Cuda);
  const auto d_rows = Buffer<float>::from(rows, Device::Cuda);
  const std::size_t outputs = std::size_t(warps) * kKeys * W;
  auto run_once = [&] {
    auto out = Buffer<float>::zeros(outputs, Device::Cuda);
    auto emitted = Buffer<unsigned>::zeros(outputs, Device::Cuda);
    sum_by_key_kernel<W><<<warps / 4, 128>>>(d_keys.data(), d_rows.data(), out.data(), emitted.data());
    TG_CUDA_CHECK_LAUNCH();
    return std::pair{out.to_vector(), emitted.to_vector()};
  };
  const auto [out, emitted] = run_once();
  std::vector<double> want(outputs, 0.0);
  std::vector<int> present(outputs, 0);
  for (int l = 0; l < lanes; ++l)
    for (int c = 0; c < W; ++c) {
      const std::size_t at = (std::size_t(l / 32) * kKeys + keys[l]) * W + c;
      want[at] += rows[std::size_t(l) * W + c];
      present[at] = 1;
    }
  for (std::size_t i = 0; i < outputs; ++i) {
    ASSERT_EQ(emitted[i], unsigned(present[i])) << "output " << i;  // once per key present, never otherwise
    if (present[i]) EXPECT_NEAR(out[i], want[i], 1e-5) << "output " << i;
  }
  for (int r = 0; r < 3; ++r) EXPECT_TRUE(test::bitwise_equal(run_once().first, out)) << "run " << r;
}

}  // namespace

TEST(WarpSumByKey, EachKeySummedOnceAndReproducibly) {
  TG_REQUIRE_CUDA();
  for (Pattern p : {Pattern::OneKey, Pattern::Runs, Pattern::Scattered}) {
    SCOPED_TRACE(int(p));
    check<1>(p, 1);
    check<4>(p, 2);
    check<10>(p, 3);
  }
}
