// NeRF-synthetic / instant-ngp camera files (transforms.json, transforms_{train,val,test}.json).
//
// Intrinsics come from fl_x, fl_y, cx, cy, w, h or camera_angle_x (and camera_angle_y), each read from the
// frame when present there, else from the top level. Missing pieces: w/h from the image file's header,
// fl_y = fl_x (or from camera_angle_y), fl_x from camera_angle_x: 0.5 w / tan(camera_angle_x / 2),
// cx = w / 2, cy = h / 2. Principal points are used as given, in the pixel convention of camera.h.
// transform_matrix (4x4 or 3x4 rows) is camera-to-world in OpenGL axes (x right, y up, z backward).
// file_path is relative to the json file's folder, with or without an extension (.png, .jpg, .jpeg tried).
// Lens distortion (non-zero k1..k4, p1, p2) and camera models other than pinhole are rejected; instant-ngp's
// scale/offset/aabb_scale keys are ignored (poses are used as stored).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tilegrad/io/dataset_frame.h"

namespace tilegrad::io {

// Frames in file order. IoError naming the file, the frame (index and file_path) and the key for: invalid
// JSON, missing or mistyped keys, no frames, no focal length, zero or non-integer sizes, NaN or non-rigid
// poses, distortion, and (with options.require_images) missing images or images whose size differs from w/h.
std::vector<DatasetFrame> load_transforms(const std::string& path, const FrameOptions& options = {});
// The same from JSON text; image paths are resolved against `base_dir`, `name` is used in messages.
std::vector<DatasetFrame> parse_transforms(std::string_view json_text, const std::string& name,
                                           const std::string& base_dir, const FrameOptions& options = {});

}  // namespace tilegrad::io
