// COLMAP model folders and scenes: file discovery (.bin before .txt, sparse/0 before sparse), frames and points.
#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "frame_checks.h"
#include "io_util.h"
#include "tilegrad/io/colmap.h"

namespace tilegrad::io {

namespace {

using internal::fail;
namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// <dir>/<stem>.bin, else <dir>/<stem>.txt, else "".
std::string model_file(const std::string& dir, const char* stem) {
  for (const char* ext : {".bin", ".txt"}) {
    const fs::path p = fs::path(dir) / (std::string(stem) + ext);
    if (is_file(p)) return p.string();
  }
  return "";
}

bool is_binary(const std::string& path) { return fs::path(path).extension() == ".bin"; }

}  // namespace

ColmapModel read_colmap_model(const std::string& sparse_dir) {
  ColmapModel m;
  m.cameras_file = model_file(sparse_dir, "cameras");
  m.images_file = model_file(sparse_dir, "images");
  m.points_file = model_file(sparse_dir, "points3D");
  if (m.cameras_file.empty()) fail(sparse_dir, "no cameras.bin or cameras.txt (not a COLMAP model folder)");
  if (m.images_file.empty()) fail(sparse_dir, "no images.bin or images.txt");
  const std::string cameras = internal::read_file(m.cameras_file);
  m.cameras = is_binary(m.cameras_file) ? parse_colmap_cameras_bin(cameras, m.cameras_file)
                                        : parse_colmap_cameras_txt(cameras, m.cameras_file);
  const std::string images = internal::read_file(m.images_file);
  m.images = is_binary(m.images_file) ? parse_colmap_images_bin(images, m.images_file)
                                      : parse_colmap_images_txt(images, m.images_file);
  if (!m.points_file.empty()) {
    const std::string points = internal::read_file(m.points_file);
    m.points = is_binary(m.points_file) ? parse_colmap_points3d_bin(points, m.points_file)
                                        : parse_colmap_points3d_txt(points, m.points_file);
  }
  return m;
}

std::string find_colmap_sparse_dir(const std::string& scene_dir) {
  for (const fs::path& dir : {fs::path(scene_dir) / "sparse" / "0", fs::path(scene_dir) / "sparse"})
    if (!model_file(dir.string(), "cameras").empty()) return dir.string();
  return "";
}

ColmapScene load_colmap_scene(const std::string& scene_dir, const FrameOptions& options,
                              const std::string& images_dir) {
  ColmapScene scene;
  scene.sparse_dir = find_colmap_sparse_dir(scene_dir);
  if (scene.sparse_dir.empty())
    fail(scene_dir, "no COLMAP model (looked for sparse/0/ and sparse/ holding cameras.bin or cameras.txt)");
  ColmapModel model = read_colmap_model(scene.sparse_dir);
  if (model.images.empty()) fail(model.images_file, "the model has no registered images");

  std::unordered_map<std::uint32_t, const ColmapCamera*> cameras;
  for (const ColmapCamera& c : model.cameras) cameras[c.id] = &c;
  std::sort(model.images.begin(), model.images.end(),
            [](const ColmapImage& a, const ColmapImage& b) { return a.name < b.name; });
  const std::string folder = options.image_folder.empty() ? images_dir : options.image_folder;
  std::vector<internal::MissingImage> missing;
  for (const ColmapImage& image : model.images) {
    const auto cam = cameras.find(image.camera_id);
    if (cam == cameras.end())
      fail(model.images_file, "image ", internal::quote(image.name), " (id ", image.id, ") refers to camera ",
           image.camera_id, ", which ", model.cameras_file, " does not define");
    const std::string where = "image " + internal::quote(image.name);
    DatasetFrame frame;
    frame.name = image.name;
    frame.image_path = (fs::path(scene_dir) / folder / image.name).string();
    frame.camera = colmap_camera(*cam->second, image, model.cameras_file);
    frame.lens = colmap_lens(*cam->second, model.cameras_file);
    if (options.require_images && !is_file(frame.image_path)) {
      missing.push_back({where, frame.image_path, frame.name});
      continue;
    }
    internal::check_frame_image(frame, options, model.images_file, where);
    if (options.require_images)
      frame.mask_path = internal::frame_mask_path(frame, options, scene_dir, "", model.images_file, where);
    scene.frames.push_back(std::move(frame));
  }
  internal::report_missing_images(missing, model.images.size(), options, model.images_file, &scene.skipped);
  scene.points = std::move(model.points);
  return scene;
}

}  // namespace tilegrad::io
