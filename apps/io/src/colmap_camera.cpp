// COLMAP camera models and the conversion of a COLMAP camera + image pose to a raster::Camera.
#include <cmath>

#include "frame_checks.h"
#include "io_util.h"
#include "tilegrad/io/colmap.h"

namespace tilegrad::io {

namespace {

struct ModelInfo {
  const char* name;
  int params;
};

// Indexed by COLMAP's model id.
constexpr ModelInfo kModels[] = {
    {"SIMPLE_PINHOLE", 3},
    {"PINHOLE", 4},
    {"SIMPLE_RADIAL", 4},
    {"RADIAL", 5},
    {"OPENCV", 8},
    {"OPENCV_FISHEYE", 8},
    {"FULL_OPENCV", 12},
    {"FOV", 5},
    {"SIMPLE_RADIAL_FISHEYE", 4},
    {"RADIAL_FISHEYE", 5},
    {"THIN_PRISM_FISHEYE", 12},
    {"RAD_TAN_THIN_PRISM_FISHEYE", 16},
};
constexpr int kModelCount = static_cast<int>(sizeof(kModels) / sizeof(kModels[0]));
constexpr int kSimplePinhole = 0, kPinhole = 1;
constexpr std::uint64_t kMaxSide = 1 << 20;  // larger "images" are corrupt numbers

}  // namespace

const char* colmap_model_name(int id) { return id >= 0 && id < kModelCount ? kModels[id].name : nullptr; }
int colmap_model_param_count(int id) { return id >= 0 && id < kModelCount ? kModels[id].params : -1; }

int colmap_model_id(std::string_view name) {
  for (int id = 0; id < kModelCount; ++id)
    if (name == kModels[id].name) return id;
  return -1;
}

raster::Camera colmap_camera(const ColmapCamera& cam, const ColmapImage& image, const std::string& file) {
  const std::string where = "image " + internal::quote(image.name) + " (camera " + std::to_string(cam.id) + ")";
  if (cam.model_id != kPinhole && cam.model_id != kSimplePinhole) {
    const char* model = colmap_model_name(cam.model_id);
    internal::fail(file, where, ": the ", model ? model : "unknown",
                   " camera model has lens distortion, which is not "
                   "supported; undistort the images first (colmap image_undistorter writes PINHOLE cameras)");
  }
  if (static_cast<int>(cam.params.size()) != colmap_model_param_count(cam.model_id))
    internal::fail(file, where, ": ", cam.params.size(), " parameters for model ", colmap_model_name(cam.model_id));
  if (cam.width == 0 || cam.height == 0 || cam.width > kMaxSide || cam.height > kMaxSide)
    internal::fail(file, where, ": invalid image size ", cam.width, "x", cam.height);
  raster::Camera c;
  const std::vector<double>& p = cam.params;
  const bool simple = cam.model_id == kSimplePinhole;
  c.fx = internal::to_float(p[0]);
  c.fy = internal::to_float(simple ? p[0] : p[1]);
  c.cx = internal::to_float(simple ? p[1] : p[2]);
  c.cy = internal::to_float(simple ? p[2] : p[3]);
  c.width = static_cast<int>(cam.width);
  c.height = static_cast<int>(cam.height);

  const auto& q = image.qvec;
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!std::isfinite(n) || n < 1e-12)
    internal::fail(file, where, ": the pose quaternion is ", std::isfinite(n) ? "zero" : "not finite (NaN or inf)");
  const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) c.rotation(i, j) = static_cast<float>(r[i][j]);
    c.translation[i] = internal::to_float(image.tvec[i]);
  }
  internal::check_camera(c, file, where);
  return c;
}

}  // namespace tilegrad::io
