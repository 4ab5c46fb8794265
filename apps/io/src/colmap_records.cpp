// Record checks shared by the COLMAP parsers.
#include "colmap_records.h"

#include <algorithm>
#include <cmath>

#include "io_util.h"

namespace tilegrad::io::internal {

namespace {
constexpr std::uint64_t kMaxSide = 1 << 20;  // larger "images" are corrupt numbers

template <class Record>
void check_unique(const std::vector<Record>& records, const std::string& file, const char* what) {
  std::vector<std::uint32_t> ids;
  ids.reserve(records.size());
  for (const Record& r : records) ids.push_back(r.id);
  std::sort(ids.begin(), ids.end());
  const auto dup = std::adjacent_find(ids.begin(), ids.end());
  if (dup != ids.end()) fail(file, what, " id ", *dup, " appears twice");
}
}  // namespace

void check_colmap_camera(const ColmapCamera& c, const std::string& file) {
  if (c.width == 0 || c.height == 0) fail(file, "camera ", c.id, ": zero-sized image (", c.width, "x", c.height, ")");
  if (c.width > kMaxSide || c.height > kMaxSide)
    fail(file, "camera ", c.id, ": image size ", c.width, "x", c.height, " is not plausible");
  const int expected = colmap_model_param_count(c.model_id);
  if (expected < 0) fail(file, "camera ", c.id, ": unknown camera model id ", c.model_id);
  if (static_cast<int>(c.params.size()) != expected)
    fail(file, "camera ", c.id, ": model ", colmap_model_name(c.model_id), " takes ", expected, " parameters, got ",
         c.params.size());
}

const char* quaternion_problem(const std::array<double, 4>& q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!std::isfinite(n)) return "not finite (NaN or inf)";
  return n < 1e-12 ? "zero" : nullptr;
}

void check_unique_camera_ids(const std::vector<ColmapCamera>& cameras, const std::string& file) {
  check_unique(cameras, file, "camera");
}
void check_unique_image_ids(const std::vector<ColmapImage>& images, const std::string& file) {
  check_unique(images, file, "image");
}

}  // namespace tilegrad::io::internal
