// The fuzz targets of targets.h.
#include "targets.h"

#include <string>

#include "tilegrad/core/error.h"
#include "tilegrad/io/colmap.h"
#include "tilegrad/io/image.h"
#include "tilegrad/io/mesh_formats.h"
#include "tilegrad/io/ply.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/io/transforms.h"

namespace tilegrad::fuzz {

namespace {

// 1 when `read` returns, 0 when it throws a tilegrad::Error; other exceptions propagate.
template <class F>
int accepts(F&& read) {
  try {
    read();
    return 1;
  } catch (const tilegrad::Error&) {
    return 0;
  }
}

int fuzz_ply(std::string_view bytes) {
  int accepted = 0;
  accepts([&] {
    const io::PlyData ply = io::read_ply_bytes(bytes, "fuzz.ply");
    accepted += accepts([&] { io::gaussians_from_ply(ply); });
    accepted += accepts([&] { io::points_from_ply(ply); });
    accepted += accepts([&] { io::mesh_from_ply(ply); });
  });
  // The filtered read takes the skipping paths of the reader.
  accepts([&] { io::mesh_from_ply(io::read_ply_bytes(bytes, "fuzz.ply", io::mesh_ply_filter())); });
  return accepted;
}

void convert_cameras(const std::vector<io::ColmapCamera>& cameras) {
  io::ColmapImage image;
  image.qvec = {1, 0, 0, 0};
  image.name = "fuzz.png";
  for (const io::ColmapCamera& c : cameras) {
    accepts([&] { io::colmap_camera(c, image, "fuzz"); });
    accepts([&] { io::colmap_lens(c, "fuzz"); });
  }
}

using CameraParser = std::vector<io::ColmapCamera> (*)(std::string_view, const std::string&);
using ImageParser = std::vector<io::ColmapImage> (*)(std::string_view, const std::string&);
using PointParser = io::PointCloud (*)(std::string_view, const std::string&);

int fuzz_colmap(std::string_view bytes, CameraParser cameras, ImageParser images, PointParser points) {
  return accepts([&] { convert_cameras(cameras(bytes, "cameras")); }) + accepts([&] { images(bytes, "images"); }) +
         accepts([&] { points(bytes, "points3D"); });
}

int fuzz_colmap_binary(std::string_view bytes) {
  return fuzz_colmap(bytes, io::parse_colmap_cameras_bin, io::parse_colmap_images_bin, io::parse_colmap_points3d_bin);
}

int fuzz_colmap_text(std::string_view bytes) {
  return fuzz_colmap(bytes, io::parse_colmap_cameras_txt, io::parse_colmap_images_txt, io::parse_colmap_points3d_txt);
}

int fuzz_transforms(std::string_view bytes) {
  io::FrameOptions options;
  options.require_images = false;  // the fuzzer must not depend on (or probe much of) the file system
  return accepts([&] { io::parse_transforms(bytes, "transforms.json", "/nonexistent-fuzz-dir", options); });
}

int fuzz_mesh_text(std::string_view bytes) {
  return accepts([&] { io::parse_obj(bytes, "fuzz.obj"); }) + accepts([&] { io::parse_off(bytes, "fuzz.off"); });
}

// Large enough for every code path (interlacing, progressive scans, subsampling), small enough that a header
// claiming a huge image is refused quickly instead of decoding megapixels of garbage.
constexpr std::size_t kFuzzMaxPixels = std::size_t(1) << 16;

int fuzz_image(std::string_view bytes) {
  return accepts([&] { io::decode_image(bytes, "fuzz-image", kFuzzMaxPixels); });
}

}  // namespace

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {{"ply", fuzz_ply},
                                          {"colmap_binary", fuzz_colmap_binary},
                                          {"colmap_text", fuzz_colmap_text},
                                          {"transforms", fuzz_transforms},
                                          {"mesh_text", fuzz_mesh_text},
                                          {"image", fuzz_image}};
  return all;
}

const Target* find_target(std::string_view name) {
  for (const Target& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace tilegrad::fuzz
