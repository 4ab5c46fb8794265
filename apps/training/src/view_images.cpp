// One view's training image from its files: decode (with the exact box filter for plain integer downscales),
// then undistort / resize on the requested device, with the frame's mask.
#include "view_images.h"

#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/io/image.h"

namespace tilegrad::training {

using detail::concat;

SourceImage decode_view_source(const TrainingView& v) {
  SourceImage s;
  const int box = v.plan.box_downscale > 0 ? v.plan.box_downscale : 1;
  s.rgba = load_rgba_image(v.image_path, box, s.width, s.height, s.has_alpha);
  const raster::Camera& expected = v.plan.box_downscale > 0 ? v.plan.target : v.plan.source;
  if (s.width != expected.width || s.height != expected.height)
    throw IoError(concat(v.image_path, ": image is ", s.width, "x", s.height,
                         box > 1 ? concat(" at downscale ", box) : std::string(), " but its camera is ",
                         expected.width, "x", expected.height));
  if (!v.mask_path.empty()) {
    const io::Image m = io::read_image(v.mask_path);
    if (m.width != s.width || m.height != s.height)
      throw IoError(concat(v.mask_path, ": mask is ", m.width, "x", m.height, " but its image ", v.image_path, " is ",
                           s.width, "x", s.height));
    s.mask.resize(std::size_t(m.width) * m.height);
    for (std::size_t i = 0; i < s.mask.size(); ++i)
      s.mask[i] = static_cast<std::uint8_t>(std::lround(std::clamp(m.pixels[i * m.channels], 0.0f, 1.0f) * 255.0f));
  }
  return s;
}

ResampledImage make_view_image(const TrainingView& v, const SourceImage& s, Device device) {
  if (v.plan.box_downscale > 0) {
    ResampledImage out;
    out.rgba = Buffer<std::uint8_t>::from(s.rgba, device);
    out.valid_pixels = std::size_t(s.width) * s.height;
    return out;
  }
  ResampledImage out =
      resample_image(v.plan, View<const std::uint8_t>(s.rgba.data(), s.rgba.size(), Device::Cpu),
                     View<const std::uint8_t>(s.mask.data(), s.mask.size(), Device::Cpu), device);
  if (out.valid_pixels == 0)
    throw IoError(concat(v.image_path, ": no pixel of the ", v.plan.target.width, "x", v.plan.target.height,
                         " training image has a source", v.mask_path.empty() ? "" : " (or its mask covers it all)"));
  return out;
}

ResampledImage load_view_image(const TrainingView& view, Device device, bool& has_alpha) {
  const SourceImage s = decode_view_source(view);
  has_alpha = s.has_alpha;
  return make_view_image(view, s, device);
}

}  // namespace tilegrad::training
