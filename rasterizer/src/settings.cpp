// The automatic depth chunk of the blend backward (settings.h).
#include "tilegrad/rasterizer/settings.h"

#include <algorithm>
#include <cmath>

namespace tilegrad::raster {

std::uint32_t auto_depth_chunk(std::size_t instances, int multiprocessors) {
  constexpr double kBlocksPerSm = 4.0;
  constexpr int kShortestLog2 = 9, kLongestLog2 = 12;  // chunks of 512 to 4096 instances
  const double share = double(instances) / (kBlocksPerSm * double(std::max(multiprocessors, 1)));
  const int log2_length = share < 1.0 ? kShortestLog2 : int(std::lround(std::log2(share)));
  return std::uint32_t(1) << std::clamp(log2_length, kShortestLog2, kLongestLog2);
}

std::uint32_t depth_chunk_for(const BackwardSettings& settings, std::size_t instances, int multiprocessors) {
  return settings.depth_chunk == BackwardSettings::kAutoDepthChunk ? auto_depth_chunk(instances, multiprocessors)
                                                                    : settings.depth_chunk;
}

}  // namespace tilegrad::raster
