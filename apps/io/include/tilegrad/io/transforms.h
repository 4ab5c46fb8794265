// NeRF-synthetic / instant-ngp / nerfstudio camera files (transforms.json, transforms_{train,val,test}.json).
//
// Intrinsics come from fl_x, fl_y, cx, cy, w, h or camera_angle_x (and camera_angle_y), each read from the
// frame when present there, else from the top level. Missing pieces: w/h from the image file's header,
// fl_y = fl_x (or from camera_angle_y), fl_x from camera_angle_x: 0.5 w / tan(camera_angle_x / 2),
// cx = w / 2, cy = h / 2. Principal points are used as given, in the pixel convention of camera.h.
// transform_matrix (4x4 or 3x4 rows) is camera-to-world in OpenGL axes (x right, y up, z backward).
// file_path is relative to the json file's folder, with or without an extension (.png, .jpg, .jpeg tried).
//
// Lens distortion (per frame or top level, like the intrinsics): k1, k2, k3, k4, p1, p2 with instant-ngp's
// is_fisheye or nerfstudio's camera_model. A fisheye (is_fisheye: true or camera_model OPENCV_FISHEYE) is
// OPENCV_FISHEYE with k1..k4; otherwise the coefficients are OpenCV's radial-tangential ones (OPENCV, or
// FULL_OPENCV when k3, the r^6 term, is set), and all zero is a pinhole. camera_model may also be
// SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL or RADIAL (the same coefficients). Keys that change the geometry in
// ways no model expresses are refused by name: other camera models, k4 on a perspective camera, p1/p2 on a
// fisheye, k5, k6, ftheta_p*, rolling_shutter, transform_matrix_start/_end, latlong, equirectangular,
// orthographic, fisheye_crop_radius (unless they hold neutral values). instant-ngp's scale/offset/aabb_scale
// are ignored (poses are used as stored). A frame's mask_path (nerfstudio) names its mask image.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tilegrad/io/dataset_frame.h"

namespace tilegrad::io {

// Frames in file order. IoError naming the file, the frame (index and file_path) and the key for: invalid
// JSON, missing or mistyped keys, no frames, no focal length, zero or non-integer sizes, NaN or non-rigid
// poses, unsupported lens keys, and (with options.require_images) missing images (all of them listed, unless
// options.missing_images is Skip: then those frames are left out and their names appended to `skipped`) or
// images whose size differs from w/h.
std::vector<DatasetFrame> load_transforms(const std::string& path, const FrameOptions& options = {},
                                          std::vector<std::string>* skipped = nullptr);
// The same from JSON text; image paths are resolved against `base_dir`, `name` is used in messages.
std::vector<DatasetFrame> parse_transforms(std::string_view json_text, const std::string& name,
                                           const std::string& base_dir, const FrameOptions& options = {},
                                           std::vector<std::string>* skipped = nullptr);

}  // namespace tilegrad::io
