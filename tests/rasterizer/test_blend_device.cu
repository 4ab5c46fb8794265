// The blend step's derivatives in device code: the hand-written fragment_vjp the CUDA kernels run against the
// generated fragment_vjp_dual, both evaluated by a kernel, and against the host.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "blend_fixtures.h"
#include "test_support.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/check.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

struct Case {
  Splat<float> s;
  float d_alpha;
};

struct Result {
  float hand[kGrad2dWidth], generated[kGrad2dWidth];
  bool used, clamped;
};

TG_HD Result evaluate(const Case& c) {
  const Thresholds th;
  const Fragment<float> f = fragment_at(c.s, 5.5f, 7.5f, th);
  Result r{};
  if (f.used && !f.clamped) fragment_vjp<true>(f, c.s, c.d_alpha, r.hand);
  fragment_vjp_dual<true>(c.s, 5.5f, 7.5f, th, c.d_alpha, r.generated);
  r.used = f.used;
  r.clamped = f.clamped;
  return r;
}

__global__ void evaluate_kernel(const Case* in, Result* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = evaluate(in[i]);
}

}  // namespace

TEST(BlendDevice, FragmentDerivativesAreTheGeneratedOnes) {
  TG_REQUIRE_CUDA();
  const int n = 4096;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<Case> cases(n);
  for (Case& c : cases) c = {test::random_splat<float>(rng), 3.0f * u(rng)};
  auto d_in = Buffer<Case>::from(cases, Device::Cuda);
  Buffer<Result> d_out(n, Device::Cuda);
  evaluate_kernel<<<(n + 127) / 128, 128>>>(d_in.data(), d_out.data(), n);
  TG_CUDA_CHECK_LAUNCH();
  const std::vector<Result> got = d_out.to_vector();
  int compared = 0, flips = 0;
  for (int i = 0; i < n; ++i) {
    const Result host = evaluate(cases[i]);
    const Result& dev = got[i];
    if (dev.used != host.used || dev.clamped != host.clamped) {  // within rounding of a threshold
      ++flips;
      continue;
    }
    if (!dev.used || dev.clamped) continue;
    const Fragment<float> f = fragment_at(cases[i].s, 5.5f, 7.5f, Thresholds{});
    for (int e : {kGradU, kGradV, kGradConicA, kGradConicB, kGradConicC, kGradOpacity}) {
      const double scale = test::term_scale(f, cases[i].s, cases[i].d_alpha, e);
      EXPECT_NEAR(dev.hand[e], dev.generated[e], 4e-6 * scale) << i << " entry " << e << ": hand vs generated";
      // The device's exp and its fused multiply-adds round differently from the host's.
      EXPECT_NEAR(dev.hand[e], host.hand[e], 1e-5 * scale) << i << " entry " << e << ": device vs host";
    }
    ++compared;
  }
  EXPECT_GT(compared, 1000);
  EXPECT_LT(flips, 3);
}
