// View on the host, and a CUDA buffer requested without a device.
#include <gtest/gtest.h>

#include "tilegrad/core/buffer.h"

using namespace tilegrad;

TEST(View, CheckViewNamesTheArgument) {
  std::vector<float> data(4);
  View<float> v(data.data(), data.size(), Device::Cpu);
  try {
    check_view(v, 5, Device::Cpu, "means");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("means"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("expected 5"), std::string::npos);
  }
  EXPECT_THROW(check_view(v, 4, Device::Cuda, "means"), InvalidArgument);
  EXPECT_THROW(check_view(View<float>(nullptr, 4, Device::Cpu), 4, Device::Cpu, "x"), InvalidArgument);
  EXPECT_NO_THROW(check_view(v, 4, Device::Cpu, "means"));
}

TEST(View, SubviewBounds) {
  std::vector<int> data(10);
  View<int> v(data.data(), data.size(), Device::Cpu);
  EXPECT_EQ(v.subview(2, 3).data(), data.data() + 2);
  EXPECT_THROW(v.subview(8, 3), InvalidArgument);
}

TEST(Buffer, CudaWithoutDeviceIsAClearError) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  try {
    Buffer<float> b(10, Device::Cuda);
    FAIL() << "expected an exception";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos);
  }
}
