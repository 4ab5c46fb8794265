// transforms.json parsing: intrinsics with per-frame overrides, OpenGL camera-to-world poses, image paths.
#include "tilegrad/io/transforms.h"

#include <algorithm>
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

  std::vector<DatasetFrame> parse(std::vector<std::string>* skipped) {
    if (!m_root.is_object()) fail(m_name, "expected a JSON object at the top level");
    const auto frames = m_root.find("frames");
    if (frames == m_root.end() || !frames->is_array()) fail(m_name, "missing 'frames' array");
    if (frames->empty()) fail(m_name, "'frames' is empty");
    m_where = "top level";
    reject_unsupported(m_root);
    std::vector<DatasetFrame> out;
    for (std::size_t i = 0; i < frames->size(); ++i) {
      m_index = i;
      m_where = "frame " + std::to_string(i);
      std::optional<DatasetFrame> f = parse_frame((*frames)[i]);
      if (f) out.push_back(std::move(*f));
    }
    internal::report_missing_images(m_missing, frames->size(), m_options, m_name, skipped);
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

  // Keys that change the geometry of a camera in ways no supported model expresses: refused by name rather than
  // dropped. `frame` is the frame object, or the top level itself.
  void reject_unsupported(const json& obj) {
    struct Unsupported {
      const char* key;
      const char* meaning;
    };
    static const Unsupported kKeys[] = {
        {"ftheta_p0", "an f-theta lens"},       {"ftheta_p1", "an f-theta lens"},
        {"ftheta_p2", "an f-theta lens"},       {"ftheta_p3", "an f-theta lens"},
        {"ftheta_p4", "an f-theta lens"},       {"rolling_shutter", "rolling-shutter timing"},
        {"latlong", "a latitude-longitude panorama"}, {"equirectangular", "an equirectangular panorama"},
        {"orthographic", "an orthographic camera"},   {"fisheye_crop_radius", "a fisheye crop circle"},
        {"transform_matrix_start", "rolling-shutter poses"}, {"transform_matrix_end", "rolling-shutter poses"},
        {"k5", "a radial term of order 10"},    {"k6", "a radial term of order 12"},
    };
    for (const Unsupported& u : kKeys) {
      const auto it = obj.find(u.key);
      if (it == obj.end() || it->is_null()) continue;
      // Explicit neutral values (false, 0, all zeros) change nothing.
      if (it->is_boolean() && !it->get<bool>()) continue;
      if (it->is_number() && it->get<double>() == 0.0) continue;
      if (it->is_array() && std::all_of(it->begin(), it->end(),
                                        [](const json& x) { return x.is_number() && x.get<double>() == 0.0; }))
        continue;
      error(quote(u.key), " (", u.meaning, ") is not supported");
    }
  }

  // The lens of a frame from instant-ngp's k1..k4, p1, p2, is_fisheye and nerfstudio's camera_model.
  raster::Lens read_lens(const json& frame) {
    raster::Lens lens;
    bool fisheye = false;
    if (const json* model = lookup(frame, "camera_model")) {
      const std::string m = model->is_string() ? model->get<std::string>() : model->dump();
      if (m == "OPENCV_FISHEYE") {
        fisheye = true;
      } else if (m != "OPENCV" && m != "PINHOLE" && m != "SIMPLE_PINHOLE" && m != "SIMPLE_RADIAL" && m != "RADIAL") {
        error("camera_model ", quote(m),
              " is not supported (supported: SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, OPENCV, OPENCV_FISHEYE)");
      }
    }
    if (const json* f = lookup(frame, "is_fisheye")) {
      if (!f->is_boolean()) error("'is_fisheye' must be true or false");
      if (f->get<bool>() && lookup(frame, "camera_model") && !fisheye)
        error("'is_fisheye' is true but camera_model is not OPENCV_FISHEYE");
      fisheye = fisheye || f->get<bool>();
    }
    double k[4], p[2];
    const char* kNames[4] = {"k1", "k2", "k3", "k4"};
    for (int i = 0; i < 4; ++i) k[i] = number(frame, kNames[i]).value_or(0.0);
    p[0] = number(frame, "p1").value_or(0.0);
    p[1] = number(frame, "p2").value_or(0.0);
    if (fisheye) {
      for (int i = 0; i < 2; ++i)
        if (p[i] != 0.0)
          error(quote(i == 0 ? "p1" : "p2"), " = ", p[i], ": tangential terms are not part of the fisheye model");
      lens.model = raster::LensModel::OpenCVFisheye;
      for (int i = 0; i < 4; ++i) lens.params[i] = k[i];
      return lens;
    }
    if (k[3] != 0.0)
      error("'k4' = ", k[3], " (a radial term of order 8) is not supported for a perspective camera ",
            "(only the fisheye model takes k4)");
    if (k[2] != 0.0) {
      lens.model = raster::LensModel::FullOpenCV;  // k1 k2 p1 p2 k3 k4 k5 k6
      const double full[8] = {k[0], k[1], p[0], p[1], k[2], 0.0, 0.0, 0.0};
      for (int i = 0; i < 8; ++i) lens.params[i] = full[i];
    } else if (k[0] != 0.0 || k[1] != 0.0 || p[0] != 0.0 || p[1] != 0.0) {
      lens.model = raster::LensModel::OpenCV;
      const double opencv[4] = {k[0], k[1], p[0], p[1]};
      for (int i = 0; i < 4; ++i) lens.params[i] = opencv[i];
    }
    return lens;
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

  // The frame, or nothing when its image is missing (recorded in m_missing).
  std::optional<DatasetFrame> parse_frame(const json& frame) {
    if (!frame.is_object()) error("expected an object");
    const auto fp = frame.find("file_path");
    if (fp == frame.end() || !fp->is_string()) error("missing 'file_path' string");
    std::string file_path = fp->get<std::string>();
    m_where = "frame " + std::to_string(m_index) + " (" + quote(file_path) + ")";
    reject_unsupported(frame);

    DatasetFrame out;
    out.name = file_path.rfind("./", 0) == 0 ? file_path.substr(2) : file_path;
    const std::filesystem::path base(m_base);
    const std::string written =
        (m_options.image_folder.empty() ? base / file_path
                                        : base / m_options.image_folder / std::filesystem::path(file_path).filename())
            .string();
    const std::string resolved = internal::resolve_image(written);
    out.image_path = resolved.empty() ? written : resolved;
    if (resolved.empty() && m_options.require_images) {
      m_missing.push_back({m_where, written + " (also tried the extensions .png, .jpg, .jpeg)", out.name});
      return std::nullopt;
    }
    out.lens = read_lens(frame);
    try {
      raster::validate(out.lens);
    } catch (const InvalidArgument& e) {
      error(e.what());
    }
    std::string listed_mask;
    if (const auto mp = frame.find("mask_path"); mp != frame.end() && !mp->is_null()) {
      if (!mp->is_string()) error("'mask_path' must be a string");
      listed_mask = mp->get<std::string>();
    }
    if (m_options.require_images)
      out.mask_path = internal::frame_mask_path(out, m_options, m_base, listed_mask, m_name, m_where);

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
  std::vector<internal::MissingImage> m_missing;
};

}  // namespace

std::vector<DatasetFrame> parse_transforms(std::string_view json_text, const std::string& name,
                                           const std::string& base_dir, const FrameOptions& options,
                                           std::vector<std::string>* skipped) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {
    fail(name, "invalid JSON (", e.what(), ")");
  }
  return TransformsParser(root, name, base_dir, options).parse(skipped);
}

std::vector<DatasetFrame> load_transforms(const std::string& path, const FrameOptions& options,
                                          std::vector<std::string>* skipped) {
  const std::string base = std::filesystem::path(path).parent_path().string();
  return parse_transforms(internal::read_file(path), path, base.empty() ? "." : base, options, skipped);
}

}  // namespace tilegrad::io
