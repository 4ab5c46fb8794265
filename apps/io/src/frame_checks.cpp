// Camera and image checks for dataset frames.
#include "frame_checks.h"

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
bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}
}  // namespace

std::string resolve_image(const std::string& path) {
  if (is_file(path)) return path;
  for (const char* ext : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"})
    if (is_file(path + ext)) return path + ext;
  return "";
}

void check_frame_image(const DatasetFrame& frame, const FrameOptions& options, const std::string& file,
                       const std::string& where) {
  if (!options.require_images) return;
  if (!is_file(frame.image_path)) fail(file, where, ": image not found: ", frame.image_path);
  int width = 0, height = 0, channels = 0;
  read_image_size(frame.image_path, width, height, channels);
  if (width != frame.camera.width || height != frame.camera.height)
    fail(file, where, ": image ", frame.image_path, " is ", width, "x", height, " but the camera is ",
         frame.camera.width, "x", frame.camera.height);
}

}  // namespace tilegrad::io::internal
