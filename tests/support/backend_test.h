// Tests written once for every backend. Derive the suite from test::BackendTest, write its tests with TEST_P
// (device() is the backend's), and end the file with TG_BACKEND_TESTS(Suite). A folder lists such a file in both
// of its test binaries: the cpu-labelled one runs the suite on Device::Cpu (tests Suite.Name/cpu), the
// gpu-labelled one on Device::Cuda (Suite.Name/cuda; skipped without a device). The binary's device comes from
// TILEGRAD_TEST_DEVICE, which tilegrad_add_test sets.
#pragma once
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "test_support.h"
#include "tilegrad/core/device.h"

namespace tilegrad {
// Test names and messages show the device by name (cpu, cuda).
inline void PrintTo(Device device, std::ostream* os) { *os << to_string(device); }
}  // namespace tilegrad

namespace tilegrad::test {

class BackendTest : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (device() == Device::Cuda && !cuda_available())
      GTEST_SKIP() << "needs a CUDA device: " << cuda_device_description();
  }
  Device device() const { return GetParam(); }
};

}  // namespace tilegrad::test

#define TG_BACKEND_TESTS(suite)                                                                     \
  INSTANTIATE_TEST_SUITE_P(, suite, ::testing::Values(::tilegrad::Device::TILEGRAD_TEST_DEVICE), \
                           [](const auto& tg_info) { return std::string(::tilegrad::to_string(tg_info.param)); })
