// Buffer and View on the CPU: ownership, copies, checks, statistics.
#include <gtest/gtest.h>

#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"

using namespace tilegrad;

TEST(Buffer, FromHostRoundTrip) {
  std::vector<float> host = {1.5f, -2.0f, 3.25f};
  auto b = Buffer<float>::from(host, Device::Cpu);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.device(), Device::Cpu);
  EXPECT_EQ(b.to_vector(), host);
}

TEST(Buffer, ZerosAreZero) {
  auto b = Buffer<int>::zeros(100, Device::Cpu);
  for (int x : b.to_vector()) EXPECT_EQ(x, 0);
}

TEST(Buffer, MoveTransfersOwnership) {
  auto a = Buffer<float>::from(std::vector<float>{1, 2}, Device::Cpu);
  const float* p = a.data();
  Buffer<float> b = std::move(a);
  EXPECT_EQ(b.data(), p);
  EXPECT_TRUE(a.empty());  // NOLINT: moved-from state is specified
}

TEST(Buffer, CopyFromRejectsWrongSize) {
  auto a = Buffer<float>(3, Device::Cpu);
  auto b = Buffer<float>::from(std::vector<float>{1, 2}, Device::Cpu);
  EXPECT_THROW(a.copy_from(b.view()), InvalidArgument);
}

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

TEST(Memory, StatisticsTrackHostAllocations) {
  const auto before = memory::stats(Device::Cpu).current;
  {
    Buffer<double> b(1000, Device::Cpu);
    EXPECT_EQ(memory::stats(Device::Cpu).current, before + 8000);
    EXPECT_GE(memory::stats(Device::Cpu).peak, before + 8000);
  }
  EXPECT_EQ(memory::stats(Device::Cpu).current, before);
}

TEST(Workspace, SlotsGrowAndPersist) {
  enum class Slot { Values, Other };
  Workspace ws(Device::Cpu);
  int* a = ws.slot<int>(Slot::Values, 10);
  a[9] = 7;
  EXPECT_EQ(ws.slot<int>(Slot::Values, 5), a);  // smaller request: same memory
  EXPECT_NE(ws.slot<int>(Slot::Other, 5), a);   // another slot: other memory
  EXPECT_GE(ws.bytes(), 60u);
  ws.slot<int>(Slot::Values, 1000);
  EXPECT_GE(ws.bytes(), 4000u);
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
