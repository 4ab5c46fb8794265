// Checks shared by the dataset loaders: camera validity, the image and mask files behind a frame, missing images.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tilegrad/io/dataset_frame.h"

namespace tilegrad::io::internal {

// raster::validate, reported as an IoError "<file>: <where>: <problem>".
void check_camera(const raster::Camera& camera, const std::string& file, const std::string& where);

// The existing regular file at `path`, else `path` + one of .png .jpg .jpeg (either case); "" when none.
std::string resolve_image(const std::string& path);

// When images are required: IoError unless `image_path` is an image of the camera's size. With an image folder
// and options.scale_cameras_to_images, an image that is the camera's size divided by one factor per axis (to
// within a pixel) scales the camera's intrinsics to it instead.
void check_frame_image(DatasetFrame& frame, const FrameOptions& options, const std::string& file,
                       const std::string& where);

// options.mask_folder: <root>/<mask_folder>/<name>.png, else <name> with its extension replaced by .png; IoError
// when neither exists. Without a mask folder, `listed` (a mask path from the file, relative to root) or "".
std::string frame_mask_path(const DatasetFrame& frame, const FrameOptions& options, const std::string& root,
                            const std::string& listed, const std::string& file, const std::string& where);

// A frame without its image file: its description for messages and its name.
struct MissingImage {
  std::string where, path, name;
};

// After a loader has looked at every frame: nothing to do without missing images; IoError listing them
// (the first 20) under MissingImages::Error; their names appended to `skipped` (when given) under Skip.
// IoError as well when every frame is missing.
void report_missing_images(const std::vector<MissingImage>& missing, std::size_t frames, const FrameOptions& options,
                           const std::string& file, std::vector<std::string>* skipped);

}  // namespace tilegrad::io::internal
