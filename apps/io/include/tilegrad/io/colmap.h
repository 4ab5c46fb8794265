// COLMAP sparse models (cameras, images, points3D; binary .bin or text .txt) and scenes built from them.
// COLMAP poses (qvec = (w, x, y, z) Hamilton quaternion, tvec) map world to camera in OpenCV axes, exactly
// raster::Camera's convention; its principal point uses the same pixel-centre convention (centre of the
// top-left pixel at (0.5, 0.5)), so values are taken as they are. Camera models with lens distortion become a
// raster::Lens with COLMAP's parameters (lens.h).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilegrad/io/dataset_frame.h"
#include "tilegrad/io/ply_points.h"

namespace tilegrad::io {

struct ColmapCamera {
  std::uint32_t id = 0;
  int model_id = -1;  // COLMAP's numbering: 0 SIMPLE_PINHOLE, 1 PINHOLE, 2 SIMPLE_RADIAL, ...
  std::uint64_t width = 0, height = 0;
  std::vector<double> params;  // as many as the model has
};

struct ColmapImage {
  std::uint32_t id = 0;
  std::array<double, 4> qvec{};  // world-to-camera rotation (w, x, y, z)
  std::array<double, 3> tvec{};  // world-to-camera translation
  std::uint32_t camera_id = 0;
  std::string name;  // path relative to the image folder
};

struct ColmapModel {
  std::string cameras_file, images_file, points_file;  // where it was read from (points_file "" when absent)
  std::vector<ColmapCamera> cameras;
  std::vector<ColmapImage> images;
  PointCloud points;  // points3D positions and colours (tracks and errors are not kept)
};

// Model name for a COLMAP model id (0..11), or null for an unknown id; its number of parameters (-1 unknown).
const char* colmap_model_name(int model_id);
int colmap_model_param_count(int model_id);
// Model id for a name such as "PINHOLE", or -1.
int colmap_model_id(std::string_view name);

// Parsers for one file's content; `name` is used in messages. Counts are checked against the data size before
// anything is allocated; truncation, unknown models, wrong parameter counts, zero or absurd image sizes and
// duplicate ids are IoErrors naming the record.
std::vector<ColmapCamera> parse_colmap_cameras_bin(std::string_view bytes, const std::string& name);
std::vector<ColmapImage> parse_colmap_images_bin(std::string_view bytes, const std::string& name);
PointCloud parse_colmap_points3d_bin(std::string_view bytes, const std::string& name);
std::vector<ColmapCamera> parse_colmap_cameras_txt(std::string_view text, const std::string& name);
std::vector<ColmapImage> parse_colmap_images_txt(std::string_view text, const std::string& name);
PointCloud parse_colmap_points3d_txt(std::string_view text, const std::string& name);

// Reads cameras, images and (optional) points3D from a model folder, preferring .bin over .txt as COLMAP does.
ColmapModel read_colmap_model(const std::string& sparse_dir);

// Writes cameras, images and points3D (.bin, or .txt with `text`) into sparse_dir (created), as COLMAP lays them
// out: images without 2D points, points with zero error and no track (grey when the cloud has no colours).
// InvalidArgument for a model that cannot be written (parameter counts, names, non-finite values); IoError for
// failed writes.
void write_colmap_model(const std::string& sparse_dir, const ColmapModel& model, bool text = false);

// <scene>/sparse/0 or else <scene>/sparse when it holds cameras.bin or cameras.txt; "" when neither does.
std::string find_colmap_sparse_dir(const std::string& scene_dir);

// The camera of one image: fx, fy, cx, cy from the model's focal length(s) and principal point, size, pose (the
// lens distortion is colmap_lens). Models without a lens here (THIN_PRISM_FISHEYE, RAD_TAN_THIN_PRISM_FISHEYE)
// are an IoError naming the model; NaN or zero quaternions, non-finite translations or intrinsics are IoErrors
// naming the image (`file` is used in messages).
raster::Camera colmap_camera(const ColmapCamera& camera, const ColmapImage& image, const std::string& file);
// The image record of a camera's pose, the inverse of colmap_camera's pose conversion: qvec is the rotation as a
// unit quaternion with w >= 0 (computed in double from the float matrix), tvec the translation.
ColmapImage colmap_image(const raster::Camera& camera, std::uint32_t id, std::uint32_t camera_id,
                         const std::string& name);
// The lens distortion of a camera: its model and its parameters after the focal length(s) and principal point.
// IoError naming the camera for unsupported models and invalid parameters (non-finite, FOV omega >= pi).
raster::Lens colmap_lens(const ColmapCamera& camera, const std::string& file);

struct ColmapScene {
  std::string sparse_dir;
  std::vector<DatasetFrame> frames;  // sorted by image name, so splits do not depend on reconstruction order
  PointCloud points;
  std::vector<std::string> skipped;  // images left out because their file is missing (MissingImages::Skip)
};

// A COLMAP scene folder: the model from find_colmap_sparse_dir, images in <scene>/<images_dir>/<name>
// (options.image_folder, when set, replaces images_dir), each frame with its camera's lens. IoError when there is
// no model, an image refers to a camera the model lacks, a camera is unusable (see colmap_camera, colmap_lens),
// or (options.require_images) images are missing (all listed, unless options.missing_images is Skip) or an
// image's size differs from its camera's (see FrameOptions::scale_cameras_to_images).
ColmapScene load_colmap_scene(const std::string& scene_dir, const FrameOptions& options = {},
                              const std::string& images_dir = "images");

}  // namespace tilegrad::io
