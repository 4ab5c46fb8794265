// Internal PLY writing helpers: the header text and little-endian float rows.
#pragma once
#include <string>
#include <vector>

#include "tilegrad/io/ply.h"

namespace tilegrad::io::internal {

// "ply", the format line, comments, elements with their properties, "end_header", each ending with '\n'.
std::string ply_header_text(PlyFormat format, const std::vector<PlyElement>& elements,
                            const std::vector<std::string>& comments = {});

// Appends n floats in little-endian byte order.
void append_floats_le(std::string& out, const float* values, std::size_t n);

// Shortest decimal text that reads back to the same double (ascii writers).
std::string exact_decimal(double value);

}  // namespace tilegrad::io::internal
