// Device tag parsing and errors.
#include <gtest/gtest.h>

#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"

using namespace tilegrad;

TEST(Device, ParseAndPrint) {
  EXPECT_EQ(parse_device("cpu"), Device::Cpu);
  EXPECT_EQ(parse_device("CUDA"), Device::Cuda);
  EXPECT_STREQ(to_string(Device::Cuda), "cuda");
  EXPECT_THROW(parse_device("tpu"), InvalidArgument);
}

TEST(Device, DefaultMatchesAvailability) {
  EXPECT_EQ(default_device(), cuda_available() ? Device::Cuda : Device::Cpu);
  EXPECT_NO_THROW(require_device(Device::Cpu));
  if (!cuda_available()) {
    EXPECT_THROW(require_device(Device::Cuda), Unsupported);
  }
  EXPECT_FALSE(cuda_device_description().empty());
}

TEST(Errors, CheckMacrosThrowTypedErrors) {
  EXPECT_THROW(TG_CHECK_ARG(1 == 2, "bad ", 42), InvalidArgument);
  try {
    TG_CHECK_ARG(false, "value ", 3, " is wrong");
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "value 3 is wrong");
  }
  try {
    TG_ASSERT(1 + 1 == 3, "math");
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("test_device.cpp"), std::string::npos);
  }
}
