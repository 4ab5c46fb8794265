// Buffer and Workspace on every backend: copies, ownership, checks, allocation statistics, slots.
#include <gtest/gtest.h>

#include "backend_test.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/workspace.h"

using namespace tilegrad;

namespace {
class BufferOn : public test::BackendTest {};
}  // namespace

TEST_P(BufferOn, RoundTripThroughTheDevice) {
  const auto host = test::random_floats(100000, 7);
  auto b = Buffer<float>::from(host, device());
  EXPECT_EQ(b.size(), host.size());
  EXPECT_EQ(b.device(), device());
  const auto copy = b.clone();
  EXPECT_NE(copy.data(), b.data());
  EXPECT_TRUE(test::bitwise_equal(copy.to(Device::Cpu).to_vector(), host));
}

TEST_P(BufferOn, ZerosAreZero) {
  const auto b = Buffer<int>::zeros(1 << 20, device());
  for (int x : b.to_vector()) ASSERT_EQ(x, 0);
}

TEST_P(BufferOn, MoveTransfersOwnership) {
  auto a = Buffer<float>::from(std::vector<float>{1, 2}, device());
  const float* p = a.data();
  Buffer<float> b = std::move(a);
  EXPECT_EQ(b.data(), p);
  EXPECT_TRUE(a.empty());  // NOLINT: moved-from state is specified
  EXPECT_EQ(b.to_vector(), (std::vector<float>{1, 2}));
}

TEST_P(BufferOn, CopyFromRejectsWrongSize) {
  auto a = Buffer<float>(3, device());
  const auto b = Buffer<float>::from(std::vector<float>{1, 2}, device());
  EXPECT_THROW(a.copy_from(b.view()), InvalidArgument);
}

TEST_P(BufferOn, AssignKeepsTheAllocationWhileTheSizeIsUnchanged) {
  const auto first = test::random_floats(1000, 3), second = test::random_floats(1000, 4);
  Buffer<float> host;
  host.assign(Buffer<float>::from(first, device()).view(), Device::Cpu);
  const float* p = host.data();
  EXPECT_EQ(host.to_vector(), first);
  host.assign(Buffer<float>::from(second, device()).view(), Device::Cpu);
  EXPECT_EQ(host.data(), p);  // same size: no new allocation
  EXPECT_EQ(host.to_vector(), second);
  host.assign(Buffer<float>::from(std::vector<float>{1, 2}, device()).view(), Device::Cpu);
  EXPECT_EQ(host.size(), 2u);
  EXPECT_EQ(host.to_vector(), (std::vector<float>{1, 2}));
}

TEST_P(BufferOn, OutOfMemoryNamesTheStageAndTheBytes) {
  const memory::StageScope outer("test: outer stage");
  const std::size_t held = memory::stats(device()).current;
  {
    const memory::StageScope inner("test: a petabyte");
    try {
      Buffer<std::byte> huge(std::size_t(1) << 50, device());
      FAIL() << "allocated a petabyte";
    } catch (const OutOfMemory& e) {
      const std::string what = e.what();
      for (const char* part : {device() == Device::Cpu ? "out of host memory" : "out of GPU memory",
                               "in test: a petabyte", "cannot allocate 1073741824.0 MiB", "tilegrad's buffers hold"})
        EXPECT_NE(what.find(part), std::string::npos) << part << " in " << what;
      EXPECT_EQ(e.stage(), "test: a petabyte");
      EXPECT_EQ(e.bytes(), std::size_t(1) << 50);
      if (device() == Device::Cuda) {
        EXPECT_NE(what.find("MiB free of"), std::string::npos) << what;
      }
    }
  }
  EXPECT_STREQ(memory::current_stage(), "test: outer stage");
  EXPECT_EQ(memory::stats(device()).current, held);  // the failed request is not counted
  const auto after = Buffer<float>::from(std::vector<float>{1, 2, 3}, device());  // the device still allocates
  EXPECT_EQ(after.to_vector(), (std::vector<float>{1, 2, 3}));
}

TEST(MemoryStage, ScopesNestAndEnd) {
  EXPECT_EQ(memory::current_stage(), nullptr);
  {
    const memory::StageScope a("a");
    {
      const memory::StageScope b("b");
      EXPECT_STREQ(memory::current_stage(), "b");
    }
    EXPECT_STREQ(memory::current_stage(), "a");
  }
  EXPECT_EQ(memory::current_stage(), nullptr);
}

TEST_P(BufferOn, StatisticsTrackAllocations) {
  const auto before = memory::stats(device()).current;
  {
    Buffer<double> b(1000, device());
    EXPECT_EQ(memory::stats(device()).current, before + 8000);
    EXPECT_GE(memory::stats(device()).peak, before + 8000);
  }
  EXPECT_EQ(memory::stats(device()).current, before);
}

TEST_P(BufferOn, WorkspaceSlotsGrowAndPersist) {
  enum class Slot { Values, Other };
  Workspace ws(device());
  int* a = ws.slot<int>(Slot::Values, 10);
  EXPECT_EQ(ws.slot<int>(Slot::Values, 5), a);  // smaller request: same memory
  EXPECT_NE(ws.slot<int>(Slot::Other, 5), a);   // another slot: other memory
  EXPECT_GE(ws.bytes(), 60u);
  ws.slot<int>(Slot::Values, 1000);
  EXPECT_GE(ws.bytes(), 4000u);
  ws.release();
  EXPECT_EQ(ws.bytes(), 0u);
}


TEST_P(BufferOn, PeakScopeMeasuresOneStageAndKeepsTheEnclosingPeak) {
  memory::reset_peak(device());
  const std::size_t held = memory::stats(device()).current;
  { Buffer<std::byte> early(4000, device()); }  // the enclosing peak: held + 4000
  {
    const memory::PeakScope outer(device());
    EXPECT_EQ(outer.added_peak(), 0u);
    Buffer<std::byte> kept(300, device());
    {
      const memory::PeakScope inner(device());
      { Buffer<std::byte> a(1000, device()); }
      Buffer<std::byte> b(200, device());
      EXPECT_EQ(inner.added_peak(), 1000u);  // beyond the 300 held when it began
    }
    EXPECT_EQ(outer.added_peak(), 1300u);  // the inner stage's peak counts in the outer one
  }
  EXPECT_EQ(memory::stats(device()).peak, held + 4000);  // unchanged by the scopes
  {
    const memory::PeakScope scope(device());
    { Buffer<std::byte> big(5000, device()); }
  }
  EXPECT_EQ(memory::stats(device()).peak, held + 5000);  // a larger peak within a scope is kept
}

TG_BACKEND_TESTS(BufferOn);
