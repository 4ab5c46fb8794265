// The AD numbers and helpers in device code: the same templates evaluated by a kernel and by the host.
#include <gtest/gtest.h>

#include "test_support.h"
#include "tilegrad/ad/derivatives.h"
#include "tilegrad/ad/psd.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/check.h"

using namespace tilegrad;

namespace {

struct Energy {
  template <class S>
  TG_HD S operator()(const Vec<S, 3>& x) const {
    using T = scalar_of_t<S>;
    return exp(sin(x[0]) * x[1]) / sqrt(T(1) + x[2] * x[2]) + atan2(x[0], x[1]) + pow(x[2] + T(2), x[0]) +
           log(T(1) + x[1] * x[1]) + tanh(x[0] * x[2]) * sigmoid(x[1] - x[2]) + abs(x[0] - T(3)) +
           clamp(x[0] * x[1], T(-10), T(10));
  }
};

constexpr int kOut = 1 + 3 + 9 + 9;

// value, gradient, Hessian, and the PSD projection of the Hessian, flattened.
TG_HD void evaluate(const float* in, float* out) {
  const Vec3<float> x{{in[0], in[1], in[2]}};
  auto r = value_gradient_hessian(Energy{}, x);
  out[0] = r.value;
  for (int i = 0; i < 3; ++i) out[1 + i] = r.gradient[i];
  for (int i = 0; i < 9; ++i) out[4 + i] = r.hessian(i / 3, i % 3);
  project_psd(r.hessian, 1e-3f);
  for (int i = 0; i < 9; ++i) out[13 + i] = r.hessian(i / 3, i % 3);
}

__global__ void evaluate_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) evaluate(in + 3 * i, out + kOut * i);
}

}  // namespace

TEST(AdDevice, DeviceEvaluationMatchesHost) {
  TG_REQUIRE_CUDA();
  const int n = 257;
  auto in = test::random_floats(3 * n, 5, -0.9f, 0.9f);
  auto d_in = Buffer<float>::from(in, Device::Cuda);
  auto d_out = Buffer<float>(kOut * n, Device::Cuda);
  evaluate_kernel<<<(n + 127) / 128, 128>>>(d_in.data(), d_out.data(), n);
  TG_CUDA_CHECK_LAUNCH();
  const auto got = d_out.to_vector();
  std::vector<float> want(kOut * n);
  for (int i = 0; i < n; ++i) evaluate(in.data() + 3 * i, want.data() + kOut * i);
  // Device libm may differ from the host's by a few ulps.
  EXPECT_LT(test::max_relative_error(got, want, 1e-2), 1e-4);
}
