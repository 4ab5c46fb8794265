// Buffer on a CUDA device: host <-> device <-> device copies and statistics.
#include <gtest/gtest.h>

#include "test_support.h"
#include "tilegrad/core/buffer.h"

using namespace tilegrad;

TEST(BufferCuda, RoundTripThroughDevice) {
  TG_REQUIRE_CUDA();
  auto host = test::random_floats(100000, 7);
  auto d = Buffer<float>::from(host, Device::Cuda);
  EXPECT_EQ(d.device(), Device::Cuda);
  auto d2 = d.clone();
  auto back = d2.to(Device::Cpu);
  EXPECT_TRUE(test::bitwise_equal(back.to_vector(), host));
}

TEST(BufferCuda, ZerosAndStatistics) {
  TG_REQUIRE_CUDA();
  const auto before = memory::stats(Device::Cuda).current;
  {
    auto z = Buffer<int>::zeros(1 << 20, Device::Cuda);
    EXPECT_EQ(memory::stats(Device::Cuda).current, before + (4u << 20));
    for (int x : z.to_vector()) ASSERT_EQ(x, 0);
  }
  EXPECT_EQ(memory::stats(Device::Cuda).current, before);
}
