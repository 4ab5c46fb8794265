// 3DGS .ply reading and writing (see ply_gaussians.h for the layout).
#include "tilegrad/io/ply_gaussians.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "io_util.h"
#include "tilegrad/io/atomic_file.h"
#include "ply_columns.h"
#include "ply_write.h"

namespace tilegrad::io {

namespace {

using internal::fail;
using internal::non_finite_name;

constexpr std::string_view kRestPrefix = "f_rest_";
constexpr std::string_view kNotGaussians = " (not a 3D Gaussian splatting file?)";

// The 3 + 3 + ... scalar properties besides f_dc and f_rest, with where they go.
struct Field {
  const char* name;
  int group;              // 0 means, 1 log_scales, 2 quats, 3 opacity_logits (4 is sh)
  std::size_t component;  // index within the group's row
};
constexpr Field kFields[] = {{"x", 0, 0},       {"y", 0, 1},       {"z", 0, 2},       {"opacity", 3, 0},
                             {"scale_0", 1, 0}, {"scale_1", 1, 1}, {"scale_2", 1, 2}, {"rot_0", 2, 0},
                             {"rot_1", 2, 1},   {"rot_2", 2, 2},   {"rot_3", 2, 3}};
constexpr std::size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);
constexpr std::size_t kGroupWidth[] = {3, 3, 4, 1};

bool is_gaussian_property(std::string_view name) {
  for (const Field& f : kFields)
    if (name == f.name) return true;
  return name.substr(0, 5) == "f_dc_" || name.substr(0, kRestPrefix.size()) == kRestPrefix;
}

// SH degree from the f_rest_i properties present, which must be exactly i = 0..M-1.
int sh_degree_of(const PlyElementData& v, const std::string& file) {
  std::vector<bool> seen;
  std::size_t count = 0;
  for (const std::string& name : v.names) {
    if (name.compare(0, kRestPrefix.size(), kRestPrefix) != 0) continue;
    std::uint64_t index = 0;
    if (!internal::parse_uint64(std::string_view(name).substr(kRestPrefix.size()), index) || index >= 1000)
      fail(file, "property ", internal::quote(name), " is not f_rest_<index>");
    if (index >= seen.size()) seen.resize(static_cast<std::size_t>(index) + 1, false);
    if (seen[index]) fail(file, "property f_rest_", index, " appears twice (under different spellings)");
    seen[index] = true;
    ++count;
  }
  if (count != seen.size()) fail(file, "the f_rest_<i> properties are not numbered 0..", count - 1, " without gaps");
  for (int degree = 0; degree <= raster::kMaxShDegree; ++degree)
    if (gaussians_ply_rest_count(degree) == static_cast<int>(count)) return degree;
  fail(file, count,
       " f_rest properties: not 3 * ((d + 1)^2 - 1) for any SH degree d in 0..3 (expected 0, 9, 24 or 45)");
}

// Where one property's values go: group g's buffer at [vertex * stride + offset] (groups: means, log_scales,
// quats, opacity_logits, sh).
struct Destination {
  const std::string* name;
  const PlyColumn* column;
  int group;
  std::size_t offset, stride;
};

std::vector<std::string> property_names(int degree) {
  std::vector<std::string> names = {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"};
  for (int i = 0; i < gaussians_ply_rest_count(degree); ++i) names.push_back("f_rest_" + std::to_string(i));
  for (const char* n : {"opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"})
    names.push_back(n);
  return names;
}

}  // namespace

raster::Gaussians gaussians_from_ply(const PlyData& ply) {
  const std::string& file = ply.source;
  const PlyElementData* v = &internal::required_element(ply, "vertex", kNotGaussians);
  const int degree = sh_degree_of(*v, file);
  const std::size_t n = static_cast<std::size_t>(v->count);
  const std::size_t k = static_cast<std::size_t>(raster::sh_coefficients(degree));
  // Every column is found and checked before anything is allocated.
  std::vector<std::string> names;
  std::vector<Destination> dst;
  names.reserve(kFieldCount + 3 * k);  // stable addresses for Destination::name
  const auto add = [&](std::string name, int group, std::size_t offset, std::size_t stride) {
    names.push_back(std::move(name));
    dst.push_back({&names.back(), &internal::required_scalar(*v, names.back(), file, kNotGaussians), group, offset,
                   stride});
  };
  for (const Field& f : kFields) add(f.name, f.group, f.component, kGroupWidth[f.group]);
  for (std::size_t c = 0; c < 3; ++c) {  // sh is [N, K, 3]: coefficient-major, then channel
    add("f_dc_" + std::to_string(c), 4, c, k * 3);
    for (std::size_t j = 1; j < k; ++j) add("f_rest_" + std::to_string(c * (k - 1) + (j - 1)), 4, j * 3 + c, k * 3);
  }

  raster::Gaussians g = raster::Gaussians::allocate(n, degree, Device::Cpu);
  float* groups[] = {g.means.data(), g.log_scales.data(), g.quats.data(), g.opacity_logits.data(), g.sh.data()};
  // Blocks of vertices keep the destination rows in cache while all columns are scattered into them.
  constexpr std::size_t kBlock = 4096;
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t end = std::min(n, begin + kBlock);
    for (const Destination& d : dst) {
      const std::vector<float>* exact = d.column->get_if<float>();
      float* base = groups[d.group];
      for (std::size_t i = begin; i < end; ++i) {
        const float value = exact ? (*exact)[i] : internal::to_float(d.column->as_double(i));
        if (!std::isfinite(value))
          fail(file, "vertex ", i, ": property ", internal::quote(*d.name), " is ", non_finite_name(value));
        base[i * d.stride + d.offset] = value;
      }
    }
  }
  return g;
}

raster::Gaussians read_gaussians_ply(const std::string& path) {
  const PlyFilter keep = [](const PlyElement& e, const PlyProperty& p) {
    return e.name == "vertex" && is_gaussian_property(p.name);
  };
  return gaussians_from_ply(read_ply(path, keep));
}

void write_gaussians_ply(const std::string& path, const raster::GaussiansView& view) {
  raster::validate(view);
  TG_CHECK_ARG(view.count == 0 || view.sh.size() == view.count * raster::sh_coefficients(view.sh_degree) * 3, path,
               ": the 3DGS .ply format stores SH coefficients; these Gaussians have precomputed colours only");
  const std::size_t n = view.count;
  const std::size_t k = static_cast<std::size_t>(raster::sh_coefficients(view.sh_degree));
  const std::vector<float> means = to_vector(view.means), scales = to_vector(view.log_scales),
                           quats = to_vector(view.quats), opacity = to_vector(view.opacity_logits),
                           sh = to_vector(view.sh);
  const std::vector<std::string> names = property_names(view.sh_degree);

  std::vector<float> row(names.size());
  const auto fill_row = [&](std::size_t i) {
    std::size_t c = 0;
    for (int d = 0; d < 3; ++d) row[c++] = means[i * 3 + d];
    for (int d = 0; d < 3; ++d) row[c++] = 0.0f;  // normals: unused by 3DGS, kept for layout compatibility
    for (int ch = 0; ch < 3; ++ch) row[c++] = sh[i * k * 3 + ch];
    for (int ch = 0; ch < 3; ++ch)
      for (std::size_t j = 1; j < k; ++j) row[c++] = sh[(i * k + j) * 3 + ch];
    row[c++] = opacity[i];
    for (int d = 0; d < 3; ++d) row[c++] = scales[i * 3 + d];
    for (int d = 0; d < 4; ++d) row[c++] = quats[i * 4 + d];
  };
  // Checked before the file is created, so a bad scene never leaves a half-written file behind.
  for (std::size_t i = 0; i < n; ++i) {
    fill_row(i);
    for (std::size_t p = 0; p < row.size(); ++p)
      TG_CHECK_ARG(std::isfinite(row[p]), path, ": Gaussian ", i, ": ", names[p], " is ", non_finite_name(row[p]),
                   " (the file would not load)");
  }

  PlyElement vertex{"vertex", n, {}};
  for (const std::string& name : names) vertex.properties.push_back({name, PlyType::Float32, false, PlyType::Uint8});
  AtomicFile out(path);
  out.write(internal::ply_header_text(PlyFormat::BinaryLittleEndian, {vertex}));
  constexpr std::size_t kRowsPerWrite = 16384;
  std::string chunk;
  for (std::size_t i = 0; i < n; ++i) {
    fill_row(i);
    internal::append_floats_le(chunk, row.data(), row.size());
    if ((i + 1) % kRowsPerWrite == 0) {
      out.write(chunk);
      chunk.clear();
    }
  }
  out.write(chunk);
  out.commit();
}

void write_gaussians_ply(const std::string& path, const raster::Gaussians& gaussians) {
  write_gaussians_ply(path, gaussians.view());
}

}  // namespace tilegrad::io
