// Internal: the benchmark's inputs per (mesh, energy): the variables, how to add the term, the hand-written
// gradient where one exists, and the raw arrays exported for the PyTorch comparison.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "tilegrad/ad/element_problem.h"
#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/benchmark.h"

namespace tilegrad::mesh::bench {

// Element arrays as the PyTorch script reads them: float32 data rows of `data_width` per element.
struct ExportedTerm {
  int arity = 0;
  std::vector<std::uint32_t> elements;
  std::vector<float> data;
  int data_width = 0;
  nlohmann::json params;
};

template <int D>
struct Case {
  std::string mesh, energy;
  std::size_t vertices = 0;
  std::vector<float> x;  // [V, D]
  std::function<void(ElementProblem<float, D>&)> add_term;
  // grad = the hand-written gradient at x (both on the benchmark device); empty when there is none.
  std::function<void(View<const float>, View<float>)> handwritten;
  ExportedTerm exported;
};

struct Cases {
  std::vector<Case<2>> planar;
  std::vector<Case<3>> spatial;
};

// The rest mesh for a name of BenchmarkConfig::meshes; throws IoError when a shared mesh is missing.
io::TriangleMesh load_benchmark_mesh(const std::string& name, const std::string& data_dir);
bool benchmark_mesh_available(const std::string& name, const std::string& data_dir);

Cases make_cases(const std::string& mesh_name, const io::TriangleMesh& rest, const std::vector<std::string>& energies,
                 Device device);

}  // namespace tilegrad::mesh::bench
