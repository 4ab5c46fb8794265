// COLMAP binary model files: cameras.bin, images.bin, points3D.bin (little-endian, see COLMAP's format docs).
#include <cmath>
#include <limits>

#include "byte_stream.h"
#include "colmap_records.h"
#include "io_util.h"
#include "tilegrad/io/colmap.h"

namespace tilegrad::io {

namespace {

using internal::ByteStream;
using internal::fail;

// Smallest record of each file, used to bound the counts in the file's first 8 bytes.
constexpr std::uint64_t kMinCameraBytes = 4 + 4 + 8 + 8;
constexpr std::uint64_t kMinImageBytes = 4 + 4 * 8 + 3 * 8 + 4 + 1 + 8;
constexpr std::uint64_t kMinPointBytes = 8 + 3 * 8 + 3 + 8 + 8;
constexpr std::uint64_t kPoint2DBytes = 8 + 8 + 8;
constexpr std::uint64_t kTrackElementBytes = 4 + 4;

class BinaryReader {
 public:
  BinaryReader(std::string_view bytes, const std::string& name) : m_in(bytes, name) {}

  template <class T>
  T get(const char* what) {
    T value{};
    if (!m_in.read_le(value)) truncated(what);
    return value;
  }

  // The record count at the start of the file, checked against the bytes that follow.
  std::uint64_t count(std::uint64_t min_record_bytes, const char* what) {
    const auto n = get<std::uint64_t>("the record count");
    if (n > m_in.remaining() / min_record_bytes)
      fail(m_in.name(), "declares ", n, " ", what, " but only ", m_in.remaining(),
           " bytes follow (truncated file or corrupt count)");
    m_record = what;
    return n;
  }

  void skip_items(std::uint64_t n, std::uint64_t item_bytes, const char* what) {
    if (n > m_in.remaining() / item_bytes) fail(m_in.name(), where(), ": ", n, " ", what, " do not fit in the file");
    m_in.skip(n * item_bytes);
  }

  std::string null_terminated(const char* what) {
    std::string s;
    for (int c = m_in.get(); c != 0; c = m_in.get()) {
      if (c < 0) truncated(what);
      s.push_back(static_cast<char>(c));
    }
    return s;
  }

  void set_index(std::uint64_t i) { m_index = i; }
  std::string where() const { return std::string(m_record) + " record " + std::to_string(m_index); }
  [[noreturn]] void truncated(const char* what) {
    fail(m_in.name(), "unexpected end of file in ", where(), " (reading ", what, ")");
  }
  const std::string& name() const { return m_in.name(); }

 private:
  ByteStream m_in;
  const char* m_record = "header";
  std::uint64_t m_index = 0;
};

}  // namespace

std::vector<ColmapCamera> parse_colmap_cameras_bin(std::string_view bytes, const std::string& name) {
  BinaryReader in(bytes, name);
  const std::uint64_t n = in.count(kMinCameraBytes, "cameras");
  std::vector<ColmapCamera> cameras;
  cameras.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    in.set_index(i);
    ColmapCamera c;
    c.id = in.get<std::uint32_t>("camera_id");
    c.model_id = in.get<std::int32_t>("model_id");
    c.width = in.get<std::uint64_t>("width");
    c.height = in.get<std::uint64_t>("height");
    const int params = colmap_model_param_count(c.model_id);
    if (params < 0)
      fail(name, in.where(), ": camera ", c.id, ": unknown camera model id ", c.model_id,
           " (its parameter count, hence the rest of the file, cannot be known)");
    for (int k = 0; k < params; ++k) c.params.push_back(in.get<double>("params"));
    internal::check_colmap_camera(c, name);
    cameras.push_back(std::move(c));
  }
  internal::check_unique_camera_ids(cameras, name);
  return cameras;
}

std::vector<ColmapImage> parse_colmap_images_bin(std::string_view bytes, const std::string& name) {
  BinaryReader in(bytes, name);
  const std::uint64_t n = in.count(kMinImageBytes, "images");
  std::vector<ColmapImage> images;
  images.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    in.set_index(i);
    ColmapImage im;
    im.id = in.get<std::uint32_t>("image_id");
    for (double& q : im.qvec) q = in.get<double>("qvec");
    for (double& t : im.tvec) t = in.get<double>("tvec");
    im.camera_id = in.get<std::uint32_t>("camera_id");
    im.name = in.null_terminated("name");
    if (im.name.empty()) fail(name, in.where(), ": image ", im.id, " has an empty name");
    if (const char* problem = internal::quaternion_problem(im.qvec))
      fail(name, in.where(), ": image ", im.id, " (", internal::quote(im.name), "): the pose quaternion is ", problem);
    in.skip_items(in.get<std::uint64_t>("num_points2D"), kPoint2DBytes, "2D points");
    images.push_back(std::move(im));
  }
  internal::check_unique_image_ids(images, name);
  return images;
}

PointCloud parse_colmap_points3d_bin(std::string_view bytes, const std::string& name) {
  BinaryReader in(bytes, name);
  const std::uint64_t n = in.count(kMinPointBytes, "points");
  PointCloud points;
  points.positions.reserve(static_cast<std::size_t>(n) * 3);
  points.colors.reserve(static_cast<std::size_t>(n) * 3);
  for (std::uint64_t i = 0; i < n; ++i) {
    in.set_index(i);
    in.get<std::uint64_t>("point3D_id");
    for (int d = 0; d < 3; ++d) {
      const float x = internal::to_float(in.get<double>("xyz"));
      if (!std::isfinite(x)) fail(name, in.where(), ": coordinate ", "xyz"[d], " is ", internal::non_finite_name(x));
      points.positions.push_back(x);
    }
    for (int d = 0; d < 3; ++d) points.colors.push_back(in.get<std::uint8_t>("rgb"));
    in.get<double>("error");
    in.skip_items(in.get<std::uint64_t>("track_length"), kTrackElementBytes, "track elements");
  }
  return points;
}

}  // namespace tilegrad::io
