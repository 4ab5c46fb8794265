// COLMAP text model files: cameras.txt, images.txt (two lines per image), points3D.txt.
#include <cmath>
#include <limits>

#include "colmap_records.h"
#include "io_util.h"
#include "text_lines.h"
#include "tilegrad/io/colmap.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::quote;

// Words of one data line, with typed reads that fail naming the file, line and field.
class Fields {
 public:
  Fields(std::string_view line, const std::string& file, std::uint64_t line_number)
      : m_words(line), m_file(file), m_line(line_number) {}

  std::string_view word(const char* field) {
    std::string_view w;
    if (!m_words.next(w)) fail(m_file, "line ", m_line, ": missing ", field);
    return w;
  }
  double number(const char* field) {
    const std::string_view w = word(field);
    double x = 0;
    if (!internal::parse_double(w, x)) fail(m_file, "line ", m_line, ": ", field, " ", quote(w), " is not a number");
    return x;
  }
  std::uint64_t unsigned_int(const char* field, std::uint64_t max) {
    const std::string_view w = word(field);
    std::uint64_t x = 0;
    if (!internal::parse_uint64(w, x) || x > max)
      fail(m_file, "line ", m_line, ": ", field, " ", quote(w), " is not an integer in 0..", max);
    return x;
  }
  std::uint32_t id(const char* field) {
    return static_cast<std::uint32_t>(unsigned_int(field, std::numeric_limits<std::uint32_t>::max()));
  }
  std::string_view rest() { return m_words.rest(); }

 private:
  internal::Words m_words;
  const std::string& m_file;
  std::uint64_t m_line;
};

// Next line that is neither empty nor a '#' comment, trimmed.
bool next_data_line(internal::TextLines& lines, std::string_view& line) {
  while (lines.next(line)) {
    line = internal::Words(line).rest();
    if (!line.empty() && line[0] != '#') return true;
  }
  return false;
}

void check_points2d_line(std::string_view line, const std::string& file, std::uint64_t line_number,
                         const ColmapImage& image) {
  internal::Words words(line);
  std::size_t count = 0;
  bool ok = true;
  for (std::string_view w; ok && words.next(w); ++count) {
    if (count % 3 == 2) {
      std::int64_t id = 0;
      ok = internal::parse_int64(w, id) && id >= -1;
    } else {
      double x = 0;
      ok = internal::parse_double(w, x);
    }
  }
  if (ok && count % 3 == 0) return;
  fail(file, "line ", line_number, ": expected the POINTS2D line of image ", image.id, " (", quote(image.name),
       ", line ", line_number - 1, "): X Y POINT3D_ID triples, found ", quote(line),
       "; every image takes two lines, the second may be empty (is the POINTS2D line missing?)");
}

}  // namespace

std::vector<ColmapCamera> parse_colmap_cameras_txt(std::string_view text, const std::string& name) {
  std::vector<ColmapCamera> cameras;
  internal::TextLines lines(text);
  std::string_view line;
  while (next_data_line(lines, line)) {
    Fields f(line, name, lines.line_number());
    ColmapCamera c;
    c.id = f.id("CAMERA_ID");
    const std::string_view model = f.word("MODEL");
    c.model_id = colmap_model_id(model);
    if (c.model_id < 0) fail(name, "line ", lines.line_number(), ": unknown camera model ", quote(model));
    c.width = f.unsigned_int("WIDTH", std::numeric_limits<std::uint32_t>::max());
    c.height = f.unsigned_int("HEIGHT", std::numeric_limits<std::uint32_t>::max());
    internal::Words params(f.rest());
    for (std::string_view w; params.next(w);) {
      double x = 0;
      if (!internal::parse_double(w, x))
        fail(name, "line ", lines.line_number(), ": parameter ", quote(w), " is not a number");
      c.params.push_back(x);
    }
    internal::check_colmap_camera(c, name);
    cameras.push_back(std::move(c));
  }
  internal::check_unique_camera_ids(cameras, name);
  return cameras;
}

std::vector<ColmapImage> parse_colmap_images_txt(std::string_view text, const std::string& name) {
  std::vector<ColmapImage> images;
  internal::TextLines lines(text);
  std::string_view line, points_line;
  while (next_data_line(lines, line)) {
    Fields f(line, name, lines.line_number());
    ColmapImage im;
    im.id = f.id("IMAGE_ID");
    for (double& q : im.qvec) q = f.number("quaternion component");
    for (double& t : im.tvec) t = f.number("translation component");
    im.camera_id = f.id("CAMERA_ID");
    im.name = std::string(f.rest());  // the rest of the line, so names with spaces survive
    if (im.name.empty()) fail(name, "line ", lines.line_number(), ": missing NAME");
    if (const char* problem = internal::quaternion_problem(im.qvec))
      fail(name, "line ", lines.line_number(), ": image ", im.id, " (", quote(im.name), "): the pose quaternion is ",
           problem);
    // The next line holds the image's 2D points; it is present (possibly empty) for every image. A line that is
    // not a list of (X, Y, POINT3D_ID) triples means it is missing (the next image record would be swallowed).
    // At the end of the file a missing last line reads as an empty one.
    if (lines.next(points_line)) check_points2d_line(points_line, name, lines.line_number(), im);
    images.push_back(std::move(im));
  }
  internal::check_unique_image_ids(images, name);
  return images;
}

PointCloud parse_colmap_points3d_txt(std::string_view text, const std::string& name) {
  PointCloud points;
  internal::TextLines lines(text);
  std::string_view line;
  while (next_data_line(lines, line)) {
    Fields f(line, name, lines.line_number());
    f.unsigned_int("POINT3D_ID", std::numeric_limits<std::uint64_t>::max());
    for (const char* axis : {"X", "Y", "Z"}) {
      const float x = internal::to_float(f.number(axis));
      if (!std::isfinite(x)) fail(name, "line ", lines.line_number(), ": ", axis, " is ", internal::non_finite_name(x));
      points.positions.push_back(x);
    }
    for (const char* channel : {"R", "G", "B"})
      points.colors.push_back(static_cast<std::uint8_t>(f.unsigned_int(channel, 255)));
  }
  return points;
}

}  // namespace tilegrad::io
