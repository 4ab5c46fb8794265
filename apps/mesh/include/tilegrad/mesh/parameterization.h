// Parameterization: a disk-topology mesh (or a closed genus-0 mesh cut into one) mapped to the plane by
// minimising the symmetric Dirichlet energy from a Tutte embedding, with Newton on per-element PSD-projected
// Hessians. The energy is at least 4 sum(area), reached exactly by developable meshes.
#pragma once
#include <vector>

#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/solve_settings.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

struct ParameterizationOptions {
  double cut_fraction = 0.5;  // closed inputs: the share of the area the cut-out disk keeps
  SolveSettings solve = default_settings();

  static SolveSettings default_settings() { return projected_newton(200, 1e-10, 1e-9); }
};

struct ParameterizationResult {
  TriangleMesh disk;                      // the parameterized mesh (the input, or the cut patch)
  std::vector<std::uint32_t> vertex_map;  // disk vertex -> input vertex
  std::vector<double> uv;                 // [V, 2], total area equal to the 3D area
  double initial_energy = 0;              // at the (scaled) Tutte embedding
  double energy = 0;
  double lower_bound = 0;                 // 4 sum(area)
  std::size_t inverted = 0;               // triangles with non-positive uv area
  SolveResult solve;
};

ParameterizationResult parameterize(const TriangleMesh& mesh, const ParameterizationOptions& options = {});

// The disk with uv as positions (u, v, 0), to view or save the layout.
TriangleMesh uv_mesh(const ParameterizationResult& result);

}  // namespace tilegrad::mesh
