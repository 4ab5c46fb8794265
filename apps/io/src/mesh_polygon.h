// Fan triangulation of one polygon, shared by the OBJ, OFF and PLY mesh readers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "io_util.h"
#include "tilegrad/io/mesh.h"

namespace tilegrad::io::internal {

// Appends (p0, p[j], p[j+1]) for j = 1..n-2. A polygon with fewer than 3 corners or a repeated corner is an
// IoError "<name>: <where...>: ..." (`where` locates the face: a line number, a face index).
template <class... Where>
void append_polygon(TriangleMesh& mesh, const std::vector<std::uint32_t>& p, const std::string& name,
                    const Where&... where) {
  if (p.size() < 3) fail(name, where..., ": face with ", p.size(), " vertices (at least 3 needed)");
  std::vector<std::uint32_t> sorted(p);  // sorting keeps huge polygons in malformed files from costing O(n^2)
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) fail(name, where..., ": degenerate face (vertex ", *repeated, " appears twice)");
  for (std::size_t j = 1; j + 1 < p.size(); ++j) {
    mesh.triangles.push_back(p[0]);
    mesh.triangles.push_back(p[j]);
    mesh.triangles.push_back(p[j + 1]);
  }
}

}  // namespace tilegrad::io::internal
