// transforms.json parsing: intrinsics with per-frame overrides, OpenGL camera-to-world poses, image paths.
#include "tilegrad/io/transforms.h"

#include <cmath>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "frame_checks.h"
#include "io_util.h"
#include "tilegrad/io/image.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::quote;
using json = nlohmann::json;

// Images wider or taller than this are not images but corrupt numbers.
constexpr double kMaxImageSide = 1 << 20;
constexpr double kPi = 3.14159265358979323846;

class TransformsParser {
 public:
  TransformsParser(const json& root, const std::string& name, const std::string& base_dir, const FrameOptions& options)
      : m_root(root), m_name(name), m_base(base_dir), m_options(options) {}

  std::vector<DatasetFrame> parse() {
    if (!m_root.is_object()) fail(m_name, "expected a JSON object at the top level");
    const auto frames = m_root.find("frames");
    if (frames == m_root.end() || !frames->is_array()) fail(m_name, "missing 'frames' array");
    if (frames->empty()) fail(m_name, "'frames' is empty");
    std::vector<DatasetFrame> out;
    for (std::size_t i = 0; i < frames->size(); ++i) {
      m_index = i;
      m_where = "frame " + std::to_string(i);
      out.push_back(parse_frame((*frames)[i]));
    }
    return out;
  }

 private:
  template <class... Args>
  [[noreturn]] void error(const Args&... args) {
    fail(m_name, m_where, ": ", args...);
  }

  // The frame's value for `key`, else the top level's; null when neither has it.
  const json* lookup(const json& frame, const char* key) const {
    auto it = frame.find(key);
    if (it != frame.end()) return &*it;
    it = m_root.find(key);
    return it != m_root.end() ? &*it : nullptr;
  }

  std::optional<double> number(const json& frame, const char* key) {
    const json* v = lookup(frame, key);
    if (!v) return std::nullopt;
    if (!v->is_number()) error(quote(key), " must be a number");
    const double x = v->get<double>();
    if (!std::isfinite(x)) error(quote(key), " is ", internal::non_finite_name(x));
    return x;
  }

  int image_side(double value, const char* key) {
    if (value != std::floor(value) || value < 0 || value > kMaxImageSide)
      error(quote(key), " = ", value, " is not a valid image size");
    if (value == 0) error("zero-sized image (", key, " = 0)");
    return static_cast<int>(value);
  }

  void reject_distortion(const json& frame) {
    for (const char* key : {"k1", "k2", "k3", "k4", "p1", "p2"}) {
      const std::optional<double> k = number(frame, key);
      if (k && *k != 0.0) error("lens distortion (", key, " = ", *k, ") is not supported: undistort the images first");
    }
    if (const json* model = lookup(frame, "camera_model")) {
      const std::string m = model->is_string() ? model->get<std::string>() : model->dump();
      if (m != "OPENCV" && m != "PINHOLE" && m != "SIMPLE_PINHOLE")
        error("camera_model ", quote(m), " is not supported (pinhole cameras only)");
    }
  }

  void read_pose(const json& frame, float c2w[16]) {
    const auto it = frame.find("transform_matrix");
    if (it == frame.end()) error("missing 'transform_matrix'");
    const json& m = *it;
    if (!m.is_array() || (m.size() != 3 && m.size() != 4))
      error("'transform_matrix' must be 4 rows (or 3) of 4 numbers");
    for (std::size_t r = 0; r < 4; ++r) {
      for (std::size_t c = 0; c < 4; ++c) {
        if (r == 3 && m.size() == 3) {
          c2w[r * 4 + c] = c == 3 ? 1.0f : 0.0f;
          continue;
        }
        const json& row = m[r];
        if (!row.is_array() || row.size() != 4 || !row[c].is_number())
          error("'transform_matrix' row ", r, " must be 4 numbers");
        // JSON cannot hold NaN or inf, but a double beyond the float range becomes one.
        const double x = row[c].get<double>();
        c2w[r * 4 + c] = internal::to_float(x);
        if (!std::isfinite(c2w[r * 4 + c]))
          error("'transform_matrix'[", r, "][", c, "] = ", x, " is not a finite float");
      }
    }
  }

  DatasetFrame parse_frame(const json& frame) {
    if (!frame.is_object()) error("expected an object");
    const auto fp = frame.find("file_path");
    if (fp == frame.end() || !fp->is_string()) error("missing 'file_path' string");
    std::string file_path = fp->get<std::string>();
    m_where = "frame " + std::to_string(m_index) + " (" + quote(file_path) + ")";
    reject_distortion(frame);

    DatasetFrame out;
    out.name = file_path.rfind("./", 0) == 0 ? file_path.substr(2) : file_path;
    const std::string written = (std::filesystem::path(m_base) / file_path).string();
    const std::string resolved = internal::resolve_image(written);
    out.image_path = resolved.empty() ? written : resolved;
    if (resolved.empty() && m_options.require_images)
      error("image not found: ", written, " (also tried the extensions .png, .jpg, .jpeg)");

    int width = 0, height = 0;
    const std::optional<double> w = number(frame, "w"), h = number(frame, "h");
    if (w && h) {
      width = image_side(*w, "w");
      height = image_side(*h, "h");
    } else if (!resolved.empty()) {
      int channels = 0;
      read_image_size(resolved, width, height, channels);
    } else {
      error("no image size: the file has no 'w'/'h' and the image ", written, " does not exist");
    }

    const std::optional<double> fl_x = number(frame, "fl_x"), fl_y = number(frame, "fl_y");
    const std::optional<double> ax = number(frame, "camera_angle_x"), ay = number(frame, "camera_angle_y");
    const auto from_angle = [&](double angle, int side, const char* key) {
      if (!(angle > 0 && angle < kPi)) error(quote(key), " = ", angle, " is not an angle in (0, pi)");
      return 0.5 * side / std::tan(0.5 * angle);
    };
    std::optional<double> fx = fl_x, fy = fl_y;
    if (!fx && ax) fx = from_angle(*ax, width, "camera_angle_x");
    if (!fy && ay) fy = from_angle(*ay, height, "camera_angle_y");
    if (!fx && !fy) error("no focal length: give 'fl_x'/'fl_y' or 'camera_angle_x'");
    if (!fx) fx = fy;  // square pixels unless the file says otherwise
    if (!fy) fy = fx;
    const double cx = number(frame, "cx").value_or(0.5 * width);
    const double cy = number(frame, "cy").value_or(0.5 * height);

    float c2w[16];
    read_pose(frame, c2w);
    out.camera =
        raster::Camera::from_camera_to_world_opengl(c2w, internal::to_float(*fx), internal::to_float(*fy),
                                                    internal::to_float(cx), internal::to_float(cy), width, height);
    internal::check_camera(out.camera, m_name, m_where);
    if (w && h && !resolved.empty()) internal::check_frame_image(out, m_options, m_name, m_where);
    return out;
  }

  const json& m_root;
  const std::string& m_name;
  const std::string& m_base;
  const FrameOptions& m_options;
  std::size_t m_index = 0;
  std::string m_where;
};

}  // namespace

std::vector<DatasetFrame> parse_transforms(std::string_view json_text, const std::string& name,
                                           const std::string& base_dir, const FrameOptions& options) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {
    fail(name, "invalid JSON (", e.what(), ")");
  }
  return TransformsParser(root, name, base_dir, options).parse();
}

std::vector<DatasetFrame> load_transforms(const std::string& path, const FrameOptions& options) {
  const std::string base = std::filesystem::path(path).parent_path().string();
  return parse_transforms(internal::read_file(path), path, base.empty() ? "." : base, options);
}

}  // namespace tilegrad::io
