// Internal: the two steps of load_view_image, so that decoding runs on CPU threads while the GPU resamples.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/training/dataset.h"

namespace tilegrad::training {

struct SourceImage {
  std::vector<std::uint8_t> rgba;  // premultiplied RGBA8 at the file's resolution (or box-downscaled)
  int width = 0, height = 0;
  std::vector<std::uint8_t> mask;  // [height, width] 0..255, empty without a mask
  bool has_alpha = false;
};

// Decodes the view's image (and mask); IoError naming the file for sizes that differ from the plan.
SourceImage decode_view_source(const TrainingView& view);
// The training image on `device` (IoError when no pixel has a source).
ResampledImage make_view_image(const TrainingView& view, const SourceImage& source, Device device);

}  // namespace tilegrad::training
