// Triangle meshes on the host: reading OBJ (polygons fan-triangulated), OFF and PLY (ASCII / binary, `face`
// lists or `tristrips` with -1 restarts), writing OBJ and PLY. Errors name the file and the problem.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tilegrad::io {

struct TriangleMesh {
  std::vector<double> vertices;         // [V, 3]
  std::vector<std::uint32_t> triangles; // [F, 3], counter-clockwise seen from outside for closed meshes
  std::size_t vertex_count() const { return vertices.size() / 3; }
  std::size_t triangle_count() const { return triangles.size() / 3; }
};

// Chooses the format from the extension (.obj, .off, .ply). Rejects indices out of range, NaN or infinite
// coordinates, degenerate (repeated-index) faces, wrong counts and truncated files with IoError.
TriangleMesh read_mesh(const std::string& path);
void write_obj(const std::string& path, const TriangleMesh& mesh);
void write_ply(const std::string& path, const TriangleMesh& mesh, bool binary = true);

}  // namespace tilegrad::io
