// read_mesh (format chosen by extension), mesh validation, and the OBJ and PLY mesh writers.
#include "tilegrad/io/mesh.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>

#include "byte_stream.h"
#include "io_util.h"
#include "tilegrad/io/atomic_file.h"
#include "ply_write.h"
#include "tilegrad/io/mesh_formats.h"

namespace tilegrad::io {

using internal::fail;

void validate_mesh(const TriangleMesh& mesh, const std::string& name) {
  if (mesh.vertices.size() % 3 != 0) fail(name, "vertex array size ", mesh.vertices.size(), " is not a multiple of 3");
  if (mesh.triangles.size() % 3 != 0)
    fail(name, "triangle array size ", mesh.triangles.size(), " is not a multiple of 3");
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i)
    if (!std::isfinite(mesh.vertices[i]))
      fail(name, "vertex ", i / 3, ": coordinate ", "xyz"[i % 3], " is ", internal::non_finite_name(mesh.vertices[i]));
  const std::size_t nv = mesh.vertex_count();
  for (std::size_t t = 0; t < mesh.triangle_count(); ++t) {
    const std::uint32_t* tri = &mesh.triangles[t * 3];
    for (int k = 0; k < 3; ++k)
      if (tri[k] >= nv) fail(name, "triangle ", t, ": vertex index ", tri[k], " out of range (", nv, " vertices)");
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2])
      fail(name, "triangle ", t, " is degenerate (", tri[0], ", ", tri[1], ", ", tri[2], ")");
  }
}

TriangleMesh read_mesh(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".obj") return parse_obj(internal::read_file(path), path);
  if (ext == ".off") return parse_off(internal::read_file(path), path);
  if (ext == ".ply") return mesh_from_ply(read_ply(path, mesh_ply_filter()));
  fail(path, "unknown mesh format ", internal::quote(ext), " (expected .obj, .off or .ply)");
}

namespace {

// Writers get the caller's data: problems are InvalidArgument rather than IoError.
void check_writable(const std::string& path, const TriangleMesh& mesh) {
  try {
    validate_mesh(mesh, path);
  } catch (const IoError& e) {
    throw InvalidArgument(e.what());
  }
  TG_CHECK_ARG(mesh.vertex_count() <= std::size_t(std::numeric_limits<std::int32_t>::max()), path,
               ": too many vertices for PLY int indices");
}

}  // namespace

void write_obj(const std::string& path, const TriangleMesh& mesh) {
  check_writable(path, mesh);
  std::string text = "# tilegrad triangle mesh: " + std::to_string(mesh.vertex_count()) + " vertices, " +
                     std::to_string(mesh.triangle_count()) + " triangles\n";
  for (std::size_t i = 0; i < mesh.vertex_count(); ++i)
    text += "v " + internal::exact_decimal(mesh.vertices[i * 3]) + " " +
            internal::exact_decimal(mesh.vertices[i * 3 + 1]) + " " +
            internal::exact_decimal(mesh.vertices[i * 3 + 2]) + "\n";
  for (std::size_t t = 0; t < mesh.triangle_count(); ++t)  // OBJ indices are 1-based
    text += "f " + std::to_string(mesh.triangles[t * 3] + 1) + " " + std::to_string(mesh.triangles[t * 3 + 1] + 1) +
            " " + std::to_string(mesh.triangles[t * 3 + 2] + 1) + "\n";
  AtomicFile out(path);
  out.write(text);
  out.commit();
}

void write_ply(const std::string& path, const TriangleMesh& mesh, bool binary) {
  check_writable(path, mesh);
  // Doubles keep the coordinates exact; int indices are what every PLY reader expects.
  const PlyElement vertex{"vertex",
                          mesh.vertex_count(),
                          {{"x", PlyType::Float64, false, PlyType::Uint8},
                           {"y", PlyType::Float64, false, PlyType::Uint8},
                           {"z", PlyType::Float64, false, PlyType::Uint8}}};
  const PlyElement face{"face", mesh.triangle_count(), {{"vertex_indices", PlyType::Int32, true, PlyType::Uint8}}};
  std::string bytes =
      internal::ply_header_text(binary ? PlyFormat::BinaryLittleEndian : PlyFormat::Ascii, {vertex, face});
  for (std::size_t i = 0; i < mesh.vertex_count(); ++i) {
    for (int d = 0; d < 3; ++d) {
      const double x = mesh.vertices[i * 3 + d];
      if (binary) {
        internal::append_le(bytes, x);
      } else {
        bytes += internal::exact_decimal(x) + (d == 2 ? "\n" : " ");
      }
    }
  }
  for (std::size_t t = 0; t < mesh.triangle_count(); ++t) {
    if (binary) {
      bytes.push_back(3);
      for (int k = 0; k < 3; ++k) internal::append_le(bytes, static_cast<std::int32_t>(mesh.triangles[t * 3 + k]));
    } else {
      bytes += "3 " + std::to_string(mesh.triangles[t * 3]) + " " + std::to_string(mesh.triangles[t * 3 + 1]) + " " +
               std::to_string(mesh.triangles[t * 3 + 2]) + "\n";
    }
  }
  AtomicFile out(path);
  out.write(bytes);
  out.commit();
}

}  // namespace tilegrad::io
