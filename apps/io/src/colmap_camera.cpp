// COLMAP camera models and the conversion of a COLMAP camera + image pose to a raster::Camera.
#include <cmath>

#include "colmap_records.h"
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
constexpr std::uint64_t kMaxSide = 1 << 20;  // larger "images" are corrupt numbers

}  // namespace

const char* colmap_model_name(int id) { return id >= 0 && id < kModelCount ? kModels[id].name : nullptr; }
int colmap_model_param_count(int id) { return id >= 0 && id < kModelCount ? kModels[id].params : -1; }

int colmap_model_id(std::string_view name) {
  for (int id = 0; id < kModelCount; ++id)
    if (name == kModels[id].name) return id;
  return -1;
}

namespace {

// The lens model of a COLMAP model id and where its intrinsics sit: a single focal length (f, cx, cy, ...) or
// two (fx, fy, cx, cy, ...); -1 for models without a lens here.
struct ModelLayout {
  int lens;  // raster::LensModel, or -1: not supported
  bool single_focal;
};
constexpr ModelLayout kLayouts[] = {
    {int(raster::LensModel::Pinhole), true},              // SIMPLE_PINHOLE
    {int(raster::LensModel::Pinhole), false},             // PINHOLE
    {int(raster::LensModel::SimpleRadial), true},         // SIMPLE_RADIAL
    {int(raster::LensModel::Radial), true},               // RADIAL
    {int(raster::LensModel::OpenCV), false},              // OPENCV
    {int(raster::LensModel::OpenCVFisheye), false},       // OPENCV_FISHEYE
    {int(raster::LensModel::FullOpenCV), false},          // FULL_OPENCV
    {int(raster::LensModel::Fov), false},                 // FOV
    {int(raster::LensModel::SimpleRadialFisheye), true},  // SIMPLE_RADIAL_FISHEYE
    {int(raster::LensModel::RadialFisheye), true},        // RADIAL_FISHEYE
    {-1, false},                                          // THIN_PRISM_FISHEYE
    {-1, false},                                          // RAD_TAN_THIN_PRISM_FISHEYE
};
static_assert(sizeof(kLayouts) / sizeof(kLayouts[0]) == std::size_t(kModelCount));

const ModelLayout& layout(const ColmapCamera& cam, const std::string& file, const std::string& where) {
  const char* model = colmap_model_name(cam.model_id);
  if (!model) internal::fail(file, where, ": unknown camera model id ", cam.model_id);
  const ModelLayout& l = kLayouts[cam.model_id];
  if (l.lens < 0)
    internal::fail(file, where, ": the ", model,
                   " camera model is not supported (supported: SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, "
                   "OPENCV, FULL_OPENCV, OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE, FOV); undistort the "
                   "images first (colmap image_undistorter writes PINHOLE cameras)");
  if (static_cast<int>(cam.params.size()) != colmap_model_param_count(cam.model_id))
    internal::fail(file, where, ": ", cam.params.size(), " parameters for model ", model);
  return l;
}

std::string camera_where(const ColmapCamera& cam) { return "camera " + std::to_string(cam.id); }

}  // namespace

raster::Lens colmap_lens(const ColmapCamera& cam, const std::string& file) {
  const std::string where = camera_where(cam);
  const ModelLayout& l = layout(cam, file, where);
  raster::Lens lens;
  lens.model = static_cast<raster::LensModel>(l.lens);
  const std::size_t first = l.single_focal ? 3 : 4;
  for (std::size_t i = first; i < cam.params.size(); ++i) lens.params[i - first] = cam.params[i];
  try {
    raster::validate(lens);
  } catch (const InvalidArgument& e) {
    internal::fail(file, where, ": ", e.what());
  }
  return lens;
}

raster::Camera colmap_camera(const ColmapCamera& cam, const ColmapImage& image, const std::string& file) {
  const std::string where = "image " + internal::quote(image.name) + " (camera " + std::to_string(cam.id) + ")";
  const ModelLayout& l = layout(cam, file, where);
  if (cam.width == 0 || cam.height == 0 || cam.width > kMaxSide || cam.height > kMaxSide)
    internal::fail(file, where, ": invalid image size ", cam.width, "x", cam.height);
  raster::Camera c;
  const std::vector<double>& p = cam.params;
  const bool simple = l.single_focal;
  c.fx = internal::to_float(p[0]);
  c.fy = internal::to_float(simple ? p[0] : p[1]);
  c.cx = internal::to_float(simple ? p[1] : p[2]);
  c.cy = internal::to_float(simple ? p[2] : p[3]);
  c.width = static_cast<int>(cam.width);
  c.height = static_cast<int>(cam.height);

  const auto& q = image.qvec;
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const char* problem = internal::quaternion_problem(q);
  if (problem) internal::fail(file, where, ": the pose quaternion is ", problem);
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

ColmapImage colmap_image(const raster::Camera& camera, std::uint32_t id, std::uint32_t camera_id,
                         const std::string& name) {
  double r[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[i][j] = camera.rotation(i, j);
  // The largest of the four squared components is computed from the diagonal, the others from it.
  const double t = r[0][0] + r[1][1] + r[2][2];
  std::array<double, 4> q;
  if (t > 0) {
    const double s = 2.0 * std::sqrt(1.0 + t);
    q = {0.25 * s, (r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s};
  } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
    q = {(r[2][1] - r[1][2]) / s, 0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s};
  } else if (r[1][1] > r[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
    q = {(r[0][2] - r[2][0]) / s, (r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s};
  } else {
    const double s = 2.0 * std::sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
    q = {(r[1][0] - r[0][1]) / s, (r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s};
  }
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const double sign = q[0] < 0 ? -1.0 : 1.0;
  ColmapImage image;
  image.id = id;
  for (int i = 0; i < 4; ++i) image.qvec[std::size_t(i)] = q[std::size_t(i)] * sign / n;
  for (int i = 0; i < 3; ++i) image.tvec[std::size_t(i)] = camera.translation[i];
  image.camera_id = camera_id;
  image.name = name;
  return image;
}

}  // namespace tilegrad::io
