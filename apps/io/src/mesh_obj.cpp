// Wavefront OBJ mesh parsing.
#include <limits>

#include "io_util.h"
#include "mesh_polygon.h"
#include "text_lines.h"
#include "tilegrad/io/mesh_formats.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::quote;

// 0-based index of one face corner "i", "i/t", "i//n" or "i/t/n"; negative i counts back from the last vertex.
std::uint32_t corner_index(std::string_view word, std::size_t vertices_so_far, const std::string& name,
                           std::uint64_t line) {
  const std::string_view index = word.substr(0, word.find('/'));
  std::int64_t i = 0;
  if (!internal::parse_int64(index, i) || i == 0)
    fail(name, "line ", line, ": face index ", quote(word), " is not a non-zero integer");
  const std::int64_t resolved = i > 0 ? i - 1 : static_cast<std::int64_t>(vertices_so_far) + i;
  if (resolved < 0) fail(name, "line ", line, ": relative index ", i, " points before the first vertex");
  if (resolved >= std::numeric_limits<std::uint32_t>::max())
    fail(name, "line ", line, ": face index ", i, " is too large");
  return static_cast<std::uint32_t>(resolved);
}

}  // namespace

TriangleMesh parse_obj(std::string_view text, const std::string& name) {
  TriangleMesh mesh;
  internal::TextLines lines(text);
  std::string_view line, word;
  std::vector<std::uint32_t> polygon;
  while (lines.next(line)) {
    internal::Words words(internal::strip_comment(line));
    if (!words.next(word)) continue;
    const std::uint64_t n = lines.line_number();
    if (word == "v") {
      for (int d = 0; d < 3; ++d) {
        double x = 0;
        if (!words.next(word) || !internal::parse_double(word, x))
          fail(name, "line ", n, ": vertex needs 3 numeric coordinates");
        mesh.vertices.push_back(x);
      }
    } else if (word == "f") {
      polygon.clear();
      while (words.next(word)) polygon.push_back(corner_index(word, mesh.vertex_count(), name, n));
      internal::append_polygon(mesh, polygon, name, "line ", n);
    }
  }
  validate_mesh(mesh, name);
  return mesh;
}

}  // namespace tilegrad::io
