// The per-format parsers behind read_mesh (mesh.h), for text or PLY data already in memory (tests, fuzzing,
// tools that receive bytes). Each returns a mesh that passed validate_mesh.
#pragma once
#include <string>
#include <string_view>

#include "tilegrad/io/mesh.h"
#include "tilegrad/io/ply.h"

namespace tilegrad::io {

// Wavefront OBJ: `v x y z [...]` and `f a b c ...` with 1-based or negative (relative) indices in the forms
// i, i/t, i//n, i/t/n; polygons are fan-triangulated; other statements are ignored. `name` is used in messages.
TriangleMesh parse_obj(std::string_view text, const std::string& name);
// OFF (also COFF, NOFF, CNOFF, STOFF...): counts line, one vertex per line (extra values such as colours
// ignored), faces as `n i0 .. i(n-1)` fan-triangulated.
TriangleMesh parse_off(std::string_view text, const std::string& name);
// PLY: element `vertex` (x, y, z of any scalar type), element `face` with list `vertex_indices` or
// `vertex_index` (fan-triangulated), and/or element `tristrips` with list `vertex_indices`: -1 restarts a
// strip, triangle k of a strip is (s[k], s[k+1], s[k+2]) with the first two swapped for odd k so that the
// orientation is consistent, and degenerate strip triangles (a repeated index) are skipped.
TriangleMesh mesh_from_ply(const PlyData& ply);
// Keeps only the properties mesh_from_ply reads.
PlyFilter mesh_ply_filter();

// IoError naming `name` and the vertex or triangle for: coordinates or index arrays whose size is not a
// multiple of 3, non-finite coordinates, indices out of range, triangles that repeat a vertex.
void validate_mesh(const TriangleMesh& mesh, const std::string& name);

}  // namespace tilegrad::io
