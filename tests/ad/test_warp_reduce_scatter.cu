// warp_reduce_scatter: every component's warp sum lands on exactly one owner lane, with the bits of the
// documented halving order (emulated here on the host), whatever the width; those are warp_order_sum's bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "test_support.h"
#include "tilegrad/ad/cuda/warp_reduce_scatter.cuh"
#include "tilegrad/ad/warp_order.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/check.h"

using namespace tilegrad;

namespace {

struct LaneOut {
  float value;
  int index;
  int owner;
};

template <int W>
__global__ void reduce_scatter_kernel(const float* rows, LaneOut* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float row[W];
  for (int c = 0; c < W; ++c) row[c] = rows[std::size_t(t) * W + c];
  const cuda::LaneSum s = cuda::warp_reduce_scatter(row);
  out[t] = {s.value, s.index, s.owner ? 1 : 0};
}

// The halving order on the host: the same float additions in the same order. Returns each lane's value;
// `owned[l]` is the component lane l owns, or -1.
std::vector<float> emulate(const float* rows, int w, std::vector<int>& owned) {
  std::vector<std::vector<float>> cur(32);
  for (int l = 0; l < 32; ++l) cur[l].assign(rows + l * w, rows + (l + 1) * w);
  std::vector<int> index(32, 0), real(32, w);
  std::vector<bool> owner(32, true);
  int n = w;
  for (int d = 16; d >= 1; d /= 2) {
    std::vector<std::vector<float>> next(32);
    const int h = n == 1 ? 1 : (n + 1) / 2;
    for (int l = 0; l < 32; ++l) {
      const int p = l ^ d;
      const bool upper = (l & d) != 0;
      next[l].resize(h);
      if (n == 1) {
        next[l][0] = cur[l][0] + cur[p][0];
        if (upper) owner[l] = false;
        continue;
      }
      auto high = [&](int lane, int k) { return h + k < n ? cur[lane][h + k] : 0.0f; };
      for (int k = 0; k < h; ++k) {
        const float keep = upper ? high(l, k) : cur[l][k];
        const float received = upper ? high(p, k) : cur[p][k];  // what the partner sends
        next[l][k] = keep + received;
      }
      index[l] += upper ? h : 0;
      real[l] = upper ? std::max(real[l] - h, 0) : std::min(real[l], h);
    }
    cur.swap(next);
    n = h;
  }
  std::vector<float> value(32);
  owned.assign(32, -1);
  for (int l = 0; l < 32; ++l) {
    value[l] = cur[l][0];
    if (owner[l] && real[l] > 0) owned[l] = index[l];
  }
  return value;
}

template <int W>
void check_width() {
  const int warps = 64;
  const auto rows = test::random_floats(std::size_t(warps) * 32 * W, 100 + W, -1.0f, 1.0f);
  const auto d_rows = Buffer<float>::from(rows, Device::Cuda);
  Buffer<LaneOut> d_out(std::size_t(warps) * 32, Device::Cuda);
  reduce_scatter_kernel<W><<<warps / 2, 64>>>(d_rows.data(), d_out.data());
  TG_CUDA_CHECK_LAUNCH();
  const auto out = d_out.to_vector();
  for (int wp = 0; wp < warps; ++wp) {
    const float* r = rows.data() + std::size_t(wp) * 32 * W;
    std::vector<int> owned;
    const std::vector<float> want = emulate(r, W, owned);
    std::array<int, 32> owners{};
    for (int l = 0; l < 32; ++l) {
      const LaneOut& o = out[std::size_t(wp) * 32 + l];
      ASSERT_EQ(o.owner != 0, owned[l] >= 0) << "W " << W << " lane " << l;
      if (!o.owner) {
        EXPECT_EQ(o.index, W);
        continue;
      }
      ASSERT_EQ(o.index, owned[l]) << "W " << W << " lane " << l;
      EXPECT_EQ(o.value, want[l]) << "W " << W << " lane " << l;  // bitwise: the documented order
      float column[32];
      for (int q = 0; q < 32; ++q) column[q] = r[q * W + o.index];
      EXPECT_EQ(o.value, warp_order_sum(column)) << "W " << W << " lane " << l;  // the host's statement of it
      double exact = 0;
      for (int q = 0; q < 32; ++q) exact += r[q * W + o.index];
      EXPECT_NEAR(o.value, exact, 1e-5) << "W " << W << " component " << o.index;
      ++owners[o.index];
    }
    for (int c = 0; c < W; ++c) EXPECT_EQ(owners[c], 1) << "W " << W << " component " << c;
  }
}

}  // namespace

TEST(WarpReduceScatter, EveryComponentSummedOnceInTheDocumentedOrder) {
  TG_REQUIRE_CUDA();
  check_width<1>();
  check_width<2>();
  check_width<9>();
  check_width<12>();
  check_width<3>();
  check_width<5>();
  check_width<17>();
  check_width<31>();
  check_width<32>();
}
