// Checks shared by the COLMAP binary and text parsers.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "tilegrad/io/colmap.h"

namespace tilegrad::io::internal {

// IoError for a zero or absurd image size or a parameter count that does not match the model.
void check_colmap_camera(const ColmapCamera& camera, const std::string& file);
// "zero" or "not finite (NaN or inf)" for a pose quaternion that cannot be normalized, else null.
const char* quaternion_problem(const std::array<double, 4>& q);

// IoError naming the first id that appears twice.
void check_unique_camera_ids(const std::vector<ColmapCamera>& cameras, const std::string& file);
void check_unique_image_ids(const std::vector<ColmapImage>& images, const std::string& file);

}  // namespace tilegrad::io::internal
