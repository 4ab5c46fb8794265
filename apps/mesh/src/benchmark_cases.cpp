// The benchmark's cases (benchmark_cases.h): perturbed positions for the spatial energies, a valid uv layout for
// the symmetric Dirichlet energy (flat grid, or Tutte of the cut half of a closed mesh), element data.
#include "benchmark_cases.h"

#include <cmath>
#include <filesystem>
#include <memory>
#include <random>

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/cut.h"
#include "tilegrad/mesh/generate.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/handwritten_gradients.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"
#include "tilegrad/mesh/tutte.h"

namespace tilegrad::mesh::bench {
namespace {

std::string shared_path(const std::string& name, const std::string& data_dir) {
  if (name == "armadillo") return data_dir + "/mesh_medium_armadillo/armadillo.obj";
  if (name == "igea") return data_dir + "/mesh_large_igea/igea.ply";
  return "";
}

// Raw float rows of per-element data (every data struct of these energies is a block of floats).
template <class Data>
std::vector<float> as_floats(const std::vector<Data>& data, int& width) {
  static_assert(sizeof(Data) % sizeof(float) == 0, "element data must be whole floats");
  width = static_cast<int>(sizeof(Data) / sizeof(float));
  const auto* p = reinterpret_cast<const float*>(data.data());
  return std::vector<float>(p, p + data.size() * width);
}

// Positions moved by a fraction of the mean edge length, so stretching and bending are not at rest.
std::vector<float> perturbed(const TriangleMesh& m, double amplitude, std::uint64_t seed) {
  const Topology t = build_topology(m);
  double mean_edge = 0.0;
  for (std::size_t e = 0; e < t.edge_count(); ++e) {
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c)
      d2 += std::pow(m.vertices[3 * t.edges[2 * e] + c] - m.vertices[3 * t.edges[2 * e + 1] + c], 2);
    mean_edge += std::sqrt(d2) / static_cast<double>(t.edge_count());
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(-amplitude * mean_edge, amplitude * mean_edge);
  std::vector<float> x(m.vertices.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(m.vertices[i] + offset(rng));
  return x;
}

// A rest mesh and a valid uv layout with the same connectivity.
void planar_layout(const std::string& mesh_name, const TriangleMesh& rest, Device device, TriangleMesh& disk,
                   std::vector<float>& uv) {
  std::vector<double> layout;
  if (mesh_name.rfind("cloth-", 0) == 0) {
    const auto n = static_cast<std::uint32_t>(std::lround(std::sqrt(static_cast<double>(rest.vertex_count())))) - 1;
    disk = developable_patch(n, n);  // the rest shape; the flat grid is a valid, distorted layout of it
    layout.resize(2 * disk.vertex_count());
    for (std::size_t v = 0; v < disk.vertex_count(); ++v) {
      layout[2 * v] = rest.vertices[3 * v];
      layout[2 * v + 1] = rest.vertices[3 * v + 1];
    }
  } else {
    disk = cut_to_disk(rest, 0.5).mesh;
    layout = tutte_embedding(disk, build_topology(disk).boundary_loops[0], device);
  }
  uv.assign(layout.begin(), layout.end());
}

template <int D, class Add>
Case<D> make_case(const std::string& mesh, const std::string& energy, std::size_t vertices, std::vector<float> x,
                  Add add) {
  Case<D> c;
  c.mesh = mesh;
  c.energy = energy;
  c.vertices = vertices;
  c.x = std::move(x);
  c.add_term = add;
  return c;
}

}  // namespace

bool benchmark_mesh_available(const std::string& name, const std::string& data_dir) {
  if (name.rfind("cloth-", 0) == 0) return true;
  return !data_dir.empty() && std::filesystem::exists(shared_path(name, data_dir));
}

TriangleMesh load_benchmark_mesh(const std::string& name, const std::string& data_dir) {
  if (name.rfind("cloth-", 0) == 0) {
    const int n = std::stoi(name.substr(6));
    TG_CHECK_ARG(n >= 1 && n <= 4096, "benchmark mesh '", name, "': cloth-N needs 1 <= N <= 4096");
    return grid(static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n));
  }
  const std::string path = shared_path(name, data_dir);
  TG_CHECK_ARG(!path.empty(), "unknown benchmark mesh '", name, "' (expected armadillo, igea or cloth-N)");
  return io::read_mesh(path);
}

Cases make_cases(const std::string& mesh_name, const TriangleMesh& rest, const std::vector<std::string>& energies,
                 Device device) {
  Cases cases;
  const std::size_t nv = rest.vertex_count();
  const auto triangles = std::make_shared<Buffer<std::uint32_t>>(Buffer<std::uint32_t>::from(rest.triangles, device));
  for (const std::string& energy : energies) {
    if (energy == "uniform") {
      auto c = make_case<3>(mesh_name, energy, nv, perturbed(rest, 0.1, 1),
                            [&rest](ElementProblem<float, 3>& p) { add_uniform_dirichlet(p, rest); });
      c.exported = {2, build_topology(rest).edges, {}, 0, {{"weight", 1.0}}};
      cases.spatial.push_back(std::move(c));
    } else if (energy == "cotangent") {
      auto c = make_case<3>(mesh_name, energy, nv, perturbed(rest, 0.1, 2),
                            [&rest](ElementProblem<float, 3>& p) { add_cotangent_dirichlet(p, rest); });
      const auto weights = cotangent_weights<float>(rest);
      const auto d_weights =
          std::make_shared<Buffer<CotangentWeights<float>>>(Buffer<CotangentWeights<float>>::from(weights, device));
      c.handwritten = [triangles, d_weights](View<const float> x, View<float> g) {
        handwritten_cotangent_gradient<float>(triangles->cview(), d_weights->cview(), 1.0f, x, g);
      };
      int width = 0;
      c.exported = {3, rest.triangles, as_floats(weights, width), 0, {{"scale", 1.0}}};
      c.exported.data_width = width;
      cases.spatial.push_back(std::move(c));
    } else if (energy == "symmetric-dirichlet") {
      auto disk = std::make_shared<TriangleMesh>();
      std::vector<float> uv;
      planar_layout(mesh_name, rest, device, *disk, uv);
      auto c = make_case<2>(mesh_name, energy, disk->vertex_count(), std::move(uv),
                            [disk](ElementProblem<float, 2>& p) { add_symmetric_dirichlet(p, *disk); });
      const auto shapes = rest_triangles<float>(*disk);
      const auto d_shapes =
          std::make_shared<Buffer<RestTriangle<float>>>(Buffer<RestTriangle<float>>::from(shapes, device));
      const auto d_tris = std::make_shared<Buffer<std::uint32_t>>(Buffer<std::uint32_t>::from(disk->triangles, device));
      c.handwritten = [d_tris, d_shapes](View<const float> u, View<float> g) {
        handwritten_symmetric_dirichlet_gradient<float>(d_tris->cview(), d_shapes->cview(), u, g);
      };
      int width = 0;
      c.exported = {3, disk->triangles, as_floats(shapes, width), 0, nlohmann::json::object()};
      c.exported.data_width = width;
      cases.planar.push_back(std::move(c));
    } else if (energy == "springs" || energy == "bending") {
      const Topology t = build_topology(rest);
      const bool springs = energy == "springs";
      const auto elements = std::make_shared<std::vector<std::uint32_t>>(springs ? t.edges : t.diamonds);
      auto c = make_case<3>(mesh_name, energy, nv, perturbed(rest, 0.1, springs ? 3 : 4),
                            [&rest, elements, springs](ElementProblem<float, 3>& p) {
                              if (springs) {
                                add_springs(p, rest, *elements, 1000.0);
                              } else {
                                add_bending(p, rest, *elements, 1.0);
                              }
                            });
      int width = 0;
      c.exported = {springs ? 2 : 4, *elements,
                    springs ? as_floats(rest_lengths<float>(rest, *elements), width)
                            : as_floats(hinge_rests<float>(rest, *elements), width),
                    0, {{"stiffness", springs ? 1000.0 : 1.0}}};
      c.exported.data_width = width;
      cases.spatial.push_back(std::move(c));
    } else {
      throw InvalidArgument("unknown benchmark energy '" + energy +
                            "' (expected uniform, cotangent, symmetric-dirichlet, springs or bending)");
    }
  }
  return cases;
}

}  // namespace tilegrad::mesh::bench
