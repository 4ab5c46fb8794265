// BackwardSettings: the automatic depth chunk of the blend backward.
#include <gtest/gtest.h>

#include "tilegrad/rasterizer/settings.h"

using namespace tilegrad::raster;

namespace {
bool power_of_two(std::uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }
}  // namespace

// One resident block's share (instances / (4 x SMs)) to the nearest power of two in [512, 4096]: the lengths the
// H100 measurements chose (132 SMs): 1024 for a trained lego frame, 4096 for the garden grid at 1080p.
TEST(DepthChunk, AutoIsOneResidentBlocksShareAsAPowerOfTwo) {
  EXPECT_EQ(auto_depth_chunk(570090, 132), 1024u);     // lego 400x400: share 1080
  EXPECT_EQ(auto_depth_chunk(1780000, 132), 4096u);    // garden grid 1: share 3371, nearer 4096 than 2048
  EXPECT_EQ(auto_depth_chunk(11700000, 132), 4096u);   // garden grid 15: held to 4096
  EXPECT_EQ(auto_depth_chunk(0, 132), 512u);
  EXPECT_EQ(auto_depth_chunk(1000, 132), 512u);
  EXPECT_EQ(auto_depth_chunk(528 * 2048, 132), 2048u);  // an exact power of two stays
  EXPECT_EQ(auto_depth_chunk(528 * 2048, 0), 4096u);   // no SM count: treated as one SM
  std::uint32_t previous = 0;
  for (std::size_t n = 1; n < (std::size_t(1) << 26); n = n * 3 / 2 + 1) {
    const std::uint32_t c = auto_depth_chunk(n, 132);
    EXPECT_TRUE(power_of_two(c)) << n;
    EXPECT_GE(c, 512u) << n;
    EXPECT_LE(c, 4096u) << n;
    EXPECT_GE(c, previous) << "longer launches never get shorter chunks: " << n;
    previous = c;
  }
  EXPECT_GT(auto_depth_chunk(1000000, 66), auto_depth_chunk(1000000, 132)) << "fewer SMs: a larger share";
}

TEST(DepthChunk, ExplicitLengthsAreKept) {
  BackwardSettings s;
  EXPECT_EQ(s.depth_chunk, BackwardSettings::kAutoDepthChunk) << "automatic by default";
  EXPECT_EQ(depth_chunk_for(s, 570090, 132), 1024u);
  for (std::uint32_t n : {0u, 1u, 37u, 4096u, 100000u}) {
    s.depth_chunk = n;
    EXPECT_EQ(depth_chunk_for(s, 570090, 132), n);
  }
}
