// Point-cloud PLY reading and writing.
#include "tilegrad/io/ply_points.h"

#include <cmath>

#include "io_util.h"
#include "tilegrad/io/atomic_file.h"
#include "ply_columns.h"
#include "ply_write.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::quote;

constexpr const char* kCoords[] = {"x", "y", "z"};
constexpr const char* kColors[] = {"red", "green", "blue"};

}  // namespace

PointCloud points_from_ply(const PlyData& ply) {
  const std::string& file = ply.source;
  const PlyElementData* v = &internal::required_element(ply, "vertex");
  const std::size_t n = static_cast<std::size_t>(v->count);
  PointCloud points;
  points.positions.resize(n * 3);
  for (int d = 0; d < 3; ++d) {
    const PlyColumn* c = &internal::required_scalar(*v, kCoords[d], file);
    for (std::size_t i = 0; i < n; ++i) {
      const double value = c->as_double(i);
      if (!std::isfinite(value))
        fail(file, "vertex ", i, ": property ", quote(kCoords[d]), " is ", internal::non_finite_name(value));
      points.positions[i * 3 + d] = internal::to_float(value);
    }
  }
  int colors_found = 0;
  for (const char* name : kColors) colors_found += internal::scalar_column(*v, name, file) ? 1 : 0;
  if (colors_found == 0) return points;
  if (colors_found != 3)
    fail(file, "vertex colours need all of red, green and blue (found ", colors_found, " of them)");
  points.colors.resize(n * 3);
  for (int d = 0; d < 3; ++d) {
    const auto* values = v->find(kColors[d])->get_if<std::uint8_t>();
    if (!values)
      fail(file, "vertex property ", quote(kColors[d]), " has type ", ply_type_name(v->find(kColors[d])->type()),
           ", expected uchar");
    for (std::size_t i = 0; i < n; ++i) points.colors[i * 3 + d] = (*values)[i];
  }
  return points;
}

PointCloud read_points_ply(const std::string& path) {
  const PlyFilter keep = [](const PlyElement& e, const PlyProperty& p) {
    return e.name == "vertex" && (p.name == "x" || p.name == "y" || p.name == "z" || p.name == "red" ||
                                  p.name == "green" || p.name == "blue");
  };
  return points_from_ply(read_ply(path, keep));
}

void write_points_ply(const std::string& path, const PointCloud& points) {
  TG_CHECK_ARG(points.positions.size() % 3 == 0, path, ": positions must hold 3 floats per point, got ",
               points.positions.size(), " values");
  const std::size_t n = points.size();
  TG_CHECK_ARG(points.colors.empty() || points.colors.size() == n * 3, path, ": colors must be empty or hold ", n * 3,
               " values, got ", points.colors.size());
  for (std::size_t i = 0; i < n * 3; ++i)
    TG_CHECK_ARG(std::isfinite(points.positions[i]), path, ": point ", i / 3, ": ", kCoords[i % 3], " is ",
                 internal::non_finite_name(points.positions[i]), " (the file would not load)");
  PlyElement vertex{"vertex", n, {}};
  for (const char* name : kCoords) vertex.properties.push_back({name, PlyType::Float32, false, PlyType::Uint8});
  if (points.has_colors())
    for (const char* name : kColors) vertex.properties.push_back({name, PlyType::Uint8, false, PlyType::Uint8});
  std::string bytes = internal::ply_header_text(PlyFormat::BinaryLittleEndian, {vertex});
  bytes.reserve(bytes.size() + n * 15);
  for (std::size_t i = 0; i < n; ++i) {
    internal::append_floats_le(bytes, &points.positions[i * 3], 3);
    if (points.has_colors()) bytes.append(reinterpret_cast<const char*>(&points.colors[i * 3]), 3);
  }
  AtomicFile out(path);
  out.write(bytes);
  out.commit();
}

}  // namespace tilegrad::io
