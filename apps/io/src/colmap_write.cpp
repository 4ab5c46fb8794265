// COLMAP model writing (.bin or .txt): the layouts the parsers of colmap_binary.cpp / colmap_text.cpp read, and
// COLMAP itself, the original 3DGS and gsplat. Images are written without 2D points, points without tracks; each
// file is replaced atomically.
#include <cmath>
#include <filesystem>

#include "byte_stream.h"
#include "colmap_records.h"
#include "io_util.h"
#include "ply_write.h"
#include "tilegrad/io/atomic_file.h"
#include "tilegrad/io/colmap.h"

namespace tilegrad::io {

namespace {

using internal::append_le;
using internal::exact_decimal;

void check_model(const ColmapModel& m) {
  for (const ColmapCamera& c : m.cameras) {
    TG_CHECK_ARG(colmap_model_param_count(c.model_id) == static_cast<int>(c.params.size()), "camera ", c.id,
                 ": model id ", c.model_id, " with ", c.params.size(), " parameters");
    TG_CHECK_ARG(c.width > 0 && c.height > 0, "camera ", c.id, ": zero-sized image");
    for (double p : c.params) TG_CHECK_ARG(std::isfinite(p), "camera ", c.id, ": non-finite parameter");
  }
  for (const ColmapImage& im : m.images) {
    TG_CHECK_ARG(!im.name.empty() && im.name.find('\n') == std::string::npos &&
                     im.name.find('\0') == std::string::npos,
                 "image ", im.id, ": the name must be one non-empty line");
    TG_CHECK_ARG(internal::quaternion_problem(im.qvec) == nullptr, "image ", im.id, ": invalid quaternion");
    for (double t : im.tvec) TG_CHECK_ARG(std::isfinite(t), "image ", im.id, ": non-finite translation");
  }
  TG_CHECK_ARG(m.points.colors.empty() || m.points.colors.size() == m.points.positions.size(),
               "points: colours must be absent or one RGB triple per point");
}

std::uint8_t point_color(const PointCloud& p, std::size_t i, int c) {
  return p.colors.empty() ? std::uint8_t(128) : p.colors[3 * i + std::size_t(c)];
}

void write_binary(const std::string& dir, const ColmapModel& m) {
  std::string cams;
  append_le(cams, std::uint64_t(m.cameras.size()));
  for (const ColmapCamera& c : m.cameras) {
    append_le(cams, c.id);
    append_le(cams, std::int32_t(c.model_id));
    append_le(cams, c.width);
    append_le(cams, c.height);
    for (double p : c.params) append_le(cams, p);
  }
  std::string ims;
  append_le(ims, std::uint64_t(m.images.size()));
  for (const ColmapImage& im : m.images) {
    append_le(ims, im.id);
    for (double q : im.qvec) append_le(ims, q);
    for (double t : im.tvec) append_le(ims, t);
    append_le(ims, im.camera_id);
    ims.append(im.name);
    ims.push_back('\0');
    append_le(ims, std::uint64_t(0));  // no 2D points
  }
  std::string pts;
  const std::size_t n = m.points.size();
  append_le(pts, std::uint64_t(n));
  for (std::size_t i = 0; i < n; ++i) {
    append_le(pts, std::uint64_t(i + 1));
    for (int a = 0; a < 3; ++a) append_le(pts, double(m.points.positions[3 * i + std::size_t(a)]));
    for (int c = 0; c < 3; ++c) append_le(pts, point_color(m.points, i, c));
    append_le(pts, 0.0);               // reprojection error
    append_le(pts, std::uint64_t(0));  // no track
  }
  for (const auto& [name, bytes] : {std::pair<const char*, const std::string*>{"cameras.bin", &cams},
                                    {"images.bin", &ims},
                                    {"points3D.bin", &pts}}) {
    write_file_atomically((std::filesystem::path(dir) / name).string(), *bytes);
  }
}

void write_text(const std::string& dir, const ColmapModel& m) {
  std::string cams = "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n";
  cams += "# Number of cameras: " + std::to_string(m.cameras.size()) + "\n";
  for (const ColmapCamera& c : m.cameras) {
    cams += std::to_string(c.id) + " " + colmap_model_name(c.model_id) + " " + std::to_string(c.width) + " " +
            std::to_string(c.height);
    for (double p : c.params) cams += " " + exact_decimal(p);
    cams += "\n";
  }
  std::string ims =
      "# Image list with two lines of data per image:\n"
      "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n#   POINTS2D[] as (X, Y, POINT3D_ID)\n";
  ims += "# Number of images: " + std::to_string(m.images.size()) + "\n";
  for (const ColmapImage& im : m.images) {
    ims += std::to_string(im.id);
    for (double q : im.qvec) ims += " " + exact_decimal(q);
    for (double t : im.tvec) ims += " " + exact_decimal(t);
    ims += " " + std::to_string(im.camera_id) + " " + im.name + "\n\n";  // an empty POINTS2D line
  }
  std::string pts = "# 3D point list with one line of data per point:\n"
                    "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n";
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    pts += std::to_string(i + 1);
    for (int a = 0; a < 3; ++a) pts += " " + exact_decimal(m.points.positions[3 * i + std::size_t(a)]);
    for (int c = 0; c < 3; ++c) pts += " " + std::to_string(point_color(m.points, i, c));
    pts += " 0\n";
  }
  for (const auto& [name, text] : {std::pair<const char*, const std::string*>{"cameras.txt", &cams},
                                   {"images.txt", &ims},
                                   {"points3D.txt", &pts}}) {
    write_file_atomically((std::filesystem::path(dir) / name).string(), *text);
  }
}

}  // namespace

void write_colmap_model(const std::string& sparse_dir, const ColmapModel& model, bool text) {
  check_model(model);
  std::error_code ec;
  std::filesystem::create_directories(sparse_dir, ec);
  if (ec) throw IoError(sparse_dir + ": cannot create the folder (" + ec.message() + ")");
  if (text) {
    write_text(sparse_dir, model);
  } else {
    write_binary(sparse_dir, model);
  }
}

}  // namespace tilegrad::io
