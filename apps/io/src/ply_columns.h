// Checked access to the columns of PLY data for the format readers (Gaussians, points, meshes). PlyData is a
// public struct that callers may build themselves, so sizes are verified before any indexing.
#pragma once
#include <string>
#include <string_view>

#include "tilegrad/io/ply.h"

namespace tilegrad::io::internal {

// The element, or an IoError "<file>: no '<name>' element<hint>".
const PlyElementData& required_element(const PlyData& ply, std::string_view name, std::string_view hint = "");

// The scalar column `name` of `e`, null when absent; IoError when it is a list or does not hold one value per row.
const PlyColumn* scalar_column(const PlyElementData& e, std::string_view name, const std::string& file);
// The same, with an IoError "missing <element> property '<name>'<hint>" when absent.
const PlyColumn& required_scalar(const PlyElementData& e, std::string_view name, const std::string& file,
                                 std::string_view hint = "");
// The list column `name`, null when absent; IoError unless it is a list whose offsets fit its rows and values.
const PlyColumn* list_column(const PlyElementData& e, std::string_view name, const std::string& file);

}  // namespace tilegrad::io::internal
