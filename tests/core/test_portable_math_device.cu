// The portable float exp and log (core/portable_math.h) give the same bits in a kernel as on the host, in every
// build (they spell out each rounding, so nvcc's fused multiply-adds do not change them).
#include <gtest/gtest.h>

#include <cstring>

#include "portable_math_cases.h"
#include "test_support.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/portable_math.h"

using namespace tilegrad;

namespace {

__global__ void exp_log_kernel(const float* x, std::size_t n, float* exp_out, float* log_out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  exp_out[i] = portable::exp(x[i]);
  log_out[i] = portable::log(x[i]);
}

// Bitwise, NaN payloads aside (a NaN is a NaN).
void expect_same_bits(const std::vector<float>& device, const std::vector<float>& host, const std::vector<float>& x,
                      const char* what) {
  ASSERT_EQ(device.size(), host.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (std::isnan(host[i]) && std::isnan(device[i])) continue;
    if (std::memcmp(&host[i], &device[i], sizeof(float)) != 0 && differ++ < 5)
      ADD_FAILURE() << what << "(" << x[i] << "): device " << device[i] << ", host " << host[i];
  }
  EXPECT_EQ(differ, 0u) << what;
}

}  // namespace

TEST(PortableMathDevice, TheSameBitsAsTheHost) {
  TG_REQUIRE_CUDA();
  std::vector<float> x = test::exp_arguments();
  const std::vector<float> more = test::log_arguments();
  x.insert(x.end(), more.begin(), more.end());
  const auto d_x = Buffer<float>::from(x, Device::Cuda);
  Buffer<float> d_exp(x.size(), Device::Cuda), d_log(x.size(), Device::Cuda);
  exp_log_kernel<<<unsigned((x.size() + 255) / 256), 256>>>(d_x.data(), x.size(), d_exp.data(), d_log.data());
  TG_CUDA_CHECK_LAUNCH();
  std::vector<float> host_exp(x.size()), host_log(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    host_exp[i] = portable::exp(x[i]);
    host_log[i] = portable::log(x[i]);
  }
  expect_same_bits(d_exp.to_vector(), host_exp, x, "exp");
  expect_same_bits(d_log.to_vector(), host_log, x, "log");
}
