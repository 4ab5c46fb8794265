// Checks shared by the dataset loaders: camera validity and the image file behind a frame.
#pragma once
#include <string>
#include <string_view>

#include "tilegrad/io/dataset_frame.h"

namespace tilegrad::io::internal {

// raster::validate, reported as an IoError "<file>: <where>: <problem>".
void check_camera(const raster::Camera& camera, const std::string& file, const std::string& where);

// The existing regular file at `path`, else `path` + one of .png .jpg .jpeg (either case); "" when none.
std::string resolve_image(const std::string& path);

// When images are required: IoError unless `image_path` exists and is an image of the camera's size.
void check_frame_image(const DatasetFrame& frame, const FrameOptions& options, const std::string& file,
                       const std::string& where);

}  // namespace tilegrad::io::internal
