// PLY header text and binary float rows for the writers.
#include "ply_write.h"

#include <charconv>
#include <cstring>

#include "byte_stream.h"

namespace tilegrad::io::internal {

std::string ply_header_text(PlyFormat format, const std::vector<PlyElement>& elements,
                            const std::vector<std::string>& comments) {
  std::string h = "ply\nformat " + std::string(ply_format_name(format)) + " 1.0\n";
  for (const std::string& c : comments) h += "comment " + c + "\n";
  for (const PlyElement& e : elements) {
    h += "element " + e.name + " " + std::to_string(e.count) + "\n";
    for (const PlyProperty& p : e.properties) {
      h += "property ";
      if (p.is_list) h += "list " + std::string(ply_type_name(p.count_type)) + " ";
      h += std::string(ply_type_name(p.type)) + " " + p.name + "\n";
    }
  }
  return h + "end_header\n";
}

void append_floats_le(std::string& out, const float* values, std::size_t n) {
  if (kHostLittleEndian) {
    out.append(reinterpret_cast<const char*>(values), n * sizeof(float));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) append_le(out, values[i]);
}

std::string exact_decimal(double value) {
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);  // shortest round-trip form
  return std::string(buf, result.ptr);
}

}  // namespace tilegrad::io::internal
