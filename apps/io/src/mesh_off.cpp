// OFF mesh parsing (Object File Format and its C/N/ST-prefixed variants).
#include <algorithm>
#include <limits>

#include "io_util.h"
#include "mesh_polygon.h"
#include "text_lines.h"
#include "tilegrad/io/mesh_formats.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::quote;

// OFF with optional ST (texture), C (colour) and N (normal) prefixes, which only add values we ignore.
// 4OFF (4D) and nOFF (n-D) change the coordinate count and are not meshes in 3D.
bool is_off_keyword(std::string_view w) {
  if (w.size() < 3 || w.substr(w.size() - 3) != "OFF") return false;
  w.remove_suffix(3);
  if (w.substr(0, 2) == "ST") w.remove_prefix(2);
  if (!w.empty() && w[0] == 'C') w.remove_prefix(1);
  if (!w.empty() && w[0] == 'N') w.remove_prefix(1);
  return w.empty();
}

class OffParser {
 public:
  OffParser(std::string_view text, const std::string& name) : m_lines(text), m_name(name) {}

  TriangleMesh parse() {
    std::string_view line, word;
    if (!next_content(line)) fail(m_name, "empty file, expected an OFF header");
    internal::Words header(line);
    header.next(word);
    if (!is_off_keyword(word)) fail(m_name, "line ", at(), ": not an OFF file (starts with ", quote(word), ")");
    // The counts may follow the keyword on the same line.
    std::string_view counts = header.rest();
    if (counts.empty()) {
      if (!next_content(line)) fail(m_name, "missing the vertex/face count line");
      counts = line;
    }
    internal::Words w(counts);
    std::uint64_t nv = 0, nf = 0;
    if (!w.next(word) || !internal::parse_uint64(word, nv) || !w.next(word) || !internal::parse_uint64(word, nf))
      fail(m_name, "line ", at(), ": expected '<vertices> <faces> [<edges>]' as non-negative integers");
    // A vertex line takes at least 6 bytes ("0 0 0\n"), a face line 8 ("3 0 1 2\n").
    const std::size_t left = m_lines.bytes_left();
    if (nv > left / 6 + 1 || nf > left / 8 + 1)
      fail(m_name, "line ", at(), ": ", nv, " vertices and ", nf, " faces cannot fit in the ", left,
           " bytes left (truncated file or corrupt counts)");

    if (nv >= std::numeric_limits<std::uint32_t>::max()) fail(m_name, "line ", at(), ": too many vertices (", nv, ")");
    TriangleMesh mesh;
    mesh.vertices.reserve(static_cast<std::size_t>(nv) * 3);
    for (std::uint64_t i = 0; i < nv; ++i) read_vertex(mesh, i);
    std::vector<std::uint32_t> polygon;
    for (std::uint64_t f = 0; f < nf; ++f) read_face(mesh, polygon, f, nv);
    validate_mesh(mesh, m_name);
    return mesh;
  }

 private:
  std::uint64_t at() const { return m_lines.line_number(); }

  // Next line with content other than whitespace and '#' comments.
  bool next_content(std::string_view& line) {
    while (m_lines.next(line)) {
      line = internal::Words(internal::strip_comment(line)).rest();
      if (!line.empty()) return true;
    }
    return false;
  }

  void read_vertex(TriangleMesh& mesh, std::uint64_t i) {
    std::string_view line, word;
    if (!next_content(line)) fail(m_name, "unexpected end of file at vertex ", i, " (truncated?)");
    internal::Words w(line);
    for (int d = 0; d < 3; ++d) {
      double x = 0;
      if (!w.next(word) || !internal::parse_double(word, x))
        fail(m_name, "line ", at(), ": vertex ", i, " needs 3 numeric coordinates");
      mesh.vertices.push_back(x);
    }
  }

  void read_face(TriangleMesh& mesh, std::vector<std::uint32_t>& polygon, std::uint64_t f, std::uint64_t nv) {
    std::string_view line, word;
    if (!next_content(line)) fail(m_name, "unexpected end of file at face ", f, " (truncated?)");
    internal::Words w(line);
    std::uint64_t corners = 0;
    if (!w.next(word) || !internal::parse_uint64(word, corners))
      fail(m_name, "line ", at(), ": face ", f, " must start with its vertex count");
    if (corners > line.size()) fail(m_name, "line ", at(), ": face ", f, " claims ", corners, " vertices");
    polygon.clear();
    for (std::uint64_t k = 0; k < corners; ++k) {
      std::uint64_t index = 0;
      if (!w.next(word) || !internal::parse_uint64(word, index))
        fail(m_name, "line ", at(), ": face ", f, " needs ", corners, " non-negative vertex indices");
      if (index >= nv) fail(m_name, "line ", at(), ": face ", f, " uses vertex ", index, " but there are ", nv);
      polygon.push_back(static_cast<std::uint32_t>(index));
    }
    internal::append_polygon(mesh, polygon, m_name, "line ", at(), ": face ", f);
  }

  internal::TextLines m_lines;
  const std::string& m_name;
};

}  // namespace

TriangleMesh parse_off(std::string_view text, const std::string& name) { return OffParser(text, name).parse(); }

}  // namespace tilegrad::io
