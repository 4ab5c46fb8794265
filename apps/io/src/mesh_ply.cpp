// Triangle meshes from PLY data: vertex coordinates, polygon faces and triangle strips.
#include <limits>

#include "io_util.h"
#include "mesh_polygon.h"
#include "ply_columns.h"
#include "tilegrad/io/mesh_formats.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::quote;

const PlyColumn* index_list(const PlyElementData& e, const std::string& file, const char* const* names) {
  std::string tried;
  for (; *names; ++names) {
    const PlyColumn* c = internal::list_column(e, *names, file);
    tried += (tried.empty() ? "" : " or ") + quote(*names);
    if (!c) continue;
    if (!ply_type_is_integer(c->type()))
      fail(file, "element ", quote(e.name), ": ", quote(*names), " holds ", ply_type_name(c->type()),
           " values, expected integer vertex indices");
    return c;
  }
  fail(file, "element ", quote(e.name), " has no vertex index list (", tried, ")");
}

std::uint32_t vertex_index(double value, std::uint64_t vertices, const std::string& file, const std::string& element,
                           std::uint64_t row) {
  if (value < 0 || value >= static_cast<double>(vertices))
    fail(file, "element ", quote(element), ", row ", row, ": vertex index ", static_cast<std::int64_t>(value),
         " out of range (", vertices, " vertices)");
  return static_cast<std::uint32_t>(value);
}

void append_faces(TriangleMesh& mesh, const PlyElementData& faces, const std::string& file, std::uint64_t nv) {
  static const char* const kNames[] = {"vertex_indices", "vertex_index", nullptr};
  const PlyColumn* list = index_list(faces, file, kNames);
  std::vector<std::uint32_t> polygon;
  for (std::uint64_t f = 0; f < faces.count; ++f) {
    polygon.clear();
    for (std::uint64_t k = list->offsets[f]; k < list->offsets[f + 1]; ++k)
      polygon.push_back(vertex_index(list->as_double(k), nv, file, faces.name, f));
    internal::append_polygon(mesh, polygon, file, "face ", f);
  }
}

// Triangle k of a run (s[k], s[k+1], s[k+2]) flips orientation with k; swapping the first two indices on odd
// k restores it. Repeated indices are how strips stitch runs together: those triangles are skipped.
void append_strips(TriangleMesh& mesh, const PlyElementData& strips, const std::string& file, std::uint64_t nv) {
  static const char* const kNames[] = {"vertex_indices", nullptr};
  const PlyColumn* list = index_list(strips, file, kNames);
  std::vector<std::uint32_t> run;
  const auto flush = [&]() {
    for (std::size_t k = 0; k + 2 < run.size(); ++k) {
      std::uint32_t a = run[k], b = run[k + 1];
      const std::uint32_t c = run[k + 2];
      if (k % 2 == 1) std::swap(a, b);
      if (a == b || b == c || a == c) continue;
      mesh.triangles.insert(mesh.triangles.end(), {a, b, c});
    }
    run.clear();
  };
  for (std::uint64_t s = 0; s < strips.count; ++s) {
    for (std::uint64_t k = list->offsets[s]; k < list->offsets[s + 1]; ++k) {
      const double value = list->as_double(k);
      if (value == -1) {
        flush();
      } else {
        run.push_back(vertex_index(value, nv, file, strips.name, s));
      }
    }
    flush();
  }
}

}  // namespace

PlyFilter mesh_ply_filter() {
  return [](const PlyElement& e, const PlyProperty& p) {
    if (e.name == "vertex") return p.name == "x" || p.name == "y" || p.name == "z";
    if (e.name == "face") return p.name == "vertex_indices" || p.name == "vertex_index";
    return e.name == "tristrips" && p.name == "vertex_indices";
  };
}

TriangleMesh mesh_from_ply(const PlyData& ply) {
  const std::string& file = ply.source;
  const PlyElementData* vertex = &internal::required_element(ply, "vertex");
  if (vertex->count >= std::numeric_limits<std::uint32_t>::max()) fail(file, "too many vertices (", vertex->count, ")");
  TriangleMesh mesh;
  mesh.vertices.resize(static_cast<std::size_t>(vertex->count) * 3);
  for (int d = 0; d < 3; ++d) {
    const char* name = d == 0 ? "x" : d == 1 ? "y" : "z";
    const PlyColumn* c = &internal::required_scalar(*vertex, name, file);
    for (std::size_t i = 0; i < vertex->count; ++i) mesh.vertices[i * 3 + d] = c->as_double(i);
  }
  const PlyElementData* faces = ply.find("face");
  const PlyElementData* strips = ply.find("tristrips");
  if (!faces && !strips) fail(file, "no 'face' or 'tristrips' element (a point cloud, not a mesh?)");
  if (faces) append_faces(mesh, *faces, file, vertex->count);
  if (strips) append_strips(mesh, *strips, file, vertex->count);
  validate_mesh(mesh, file);
  return mesh;
}

}  // namespace tilegrad::io
