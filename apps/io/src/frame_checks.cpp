// Camera, image and mask checks for dataset frames.
#include "frame_checks.h"

#include <cmath>
#include <filesystem>
#include <system_error>

#include "io_util.h"
#include "tilegrad/io/image.h"

namespace tilegrad::io::internal {

void check_camera(const raster::Camera& camera, const std::string& file, const std::string& where) {
  try {
    raster::validate(camera);
  } catch (const InvalidArgument& e) {
    fail(file, where, ": ", e.what());
  }
}

namespace {
namespace fs = std::filesystem;

bool is_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// Whether `image` pixels are `camera` pixels divided by one factor: each side within a pixel of camera / f.
bool is_scaled_copy(int image_w, int image_h, int camera_w, int camera_h) {
  const double f = double(camera_w) / image_w;
  return std::abs(camera_h / f - image_h) <= 1.0;
}
}  // namespace

std::string resolve_image(const std::string& path) {
  if (is_file(path)) return path;
  for (const char* ext : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"})
    if (is_file(path + ext)) return path + ext;
  return "";
}

void check_frame_image(DatasetFrame& frame, const FrameOptions& options, const std::string& file,
                       const std::string& where) {
  if (!options.require_images) return;
  if (!is_file(frame.image_path)) fail(file, where, ": image not found: ", frame.image_path);
  int width = 0, height = 0, channels = 0;
  read_image_size(frame.image_path, width, height, channels);
  raster::Camera& c = frame.camera;
  if (width == c.width && height == c.height) return;
  if (!options.image_folder.empty() && options.scale_cameras_to_images &&
      is_scaled_copy(width, height, c.width, c.height)) {
    const float sx = float(width) / float(c.width), sy = float(height) / float(c.height);
    c.fx *= sx, c.cx *= sx, c.fy *= sy, c.cy *= sy;
    c.width = width, c.height = height;
    return;
  }
  fail(file, where, ": image ", frame.image_path, " is ", width, "x", height, " but the camera is ", c.width, "x",
       c.height, options.image_folder.empty() ? "" : " (nor is it the camera's size divided by one factor)");
}

std::string frame_mask_path(const DatasetFrame& frame, const FrameOptions& options, const std::string& root,
                            const std::string& listed, const std::string& file, const std::string& where) {
  if (options.mask_folder.empty()) {
    if (listed.empty()) return "";
    const std::string path = (fs::path(root) / listed).string();
    if (!is_file(path)) fail(file, where, ": mask not found: ", path);
    return path;
  }
  const fs::path folder = fs::path(root) / options.mask_folder;
  const fs::path name = fs::path(frame.name).filename();
  const fs::path with_png = folder / (name.string() + ".png");
  if (is_file(with_png.string())) return with_png.string();
  const fs::path replaced = folder / fs::path(name).replace_extension(".png");
  if (is_file(replaced.string())) return replaced.string();
  fail(file, where, ": no mask in ", folder.string(), " (looked for ", with_png.filename().string(), " and ",
       replaced.filename().string(), ")");
}

void report_missing_images(const std::vector<MissingImage>& missing, std::size_t frames, const FrameOptions& options,
                           const std::string& file, std::vector<std::string>* skipped) {
  if (missing.empty()) return;
  if (options.missing_images == MissingImages::Skip && missing.size() < frames) {
    if (skipped)
      for (const MissingImage& m : missing) skipped->push_back(m.name);
    return;
  }
  constexpr std::size_t kListed = 20;
  std::string list;
  for (std::size_t i = 0; i < missing.size() && i < kListed; ++i)
    list += "\n  " + missing[i].where + ": " + missing[i].path;
  if (missing.size() > kListed) list += "\n  ... and " + std::to_string(missing.size() - kListed) + " more";
  fail(file, missing.size(), " of ", frames, " frames have no image file", list,
       missing.size() == frames ? "\n(no image at all: is the image folder right?)"
                                : "\n(leave such frames out with MissingImages::Skip; tilegrad: --skip-missing-images)");
}

}  // namespace tilegrad::io::internal
