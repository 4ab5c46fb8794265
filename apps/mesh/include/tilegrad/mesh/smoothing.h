// Mesh smoothing: minimise a Dirichlet energy (uniform per edge, or cotangent-weighted from the input shape)
// with the boundary fixed and/or soft anchors pulling every vertex towards its input position.
#pragma once
#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/solve_settings.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

enum class DirichletWeights { Uniform, Cotangent };
DirichletWeights parse_dirichlet_weights(const std::string& name);  // uniform, cotangent

struct SmoothingOptions {
  DirichletWeights weights = DirichletWeights::Cotangent;
  bool fix_boundary = true;   // hold the boundary vertices (meshes with a boundary)
  double anchor_weight = 1.0; // soft anchors: anchor_weight |x - x_input|^2 per vertex; 0 = none
  SolveSettings solve = default_settings();

  // The energy is quadratic: one Newton step with an accurate PCG solve is the minimum.
  static SolveSettings default_settings() {
    SolveSettings s;
    s.adaptive_tolerance = false;
    s.pcg.relative_tolerance = 1e-10;
    s.pcg.max_iterations = 10000;
    return s;
  }
};

struct SmoothingResult {
  TriangleMesh mesh;  // the input connectivity with smoothed positions
  SolveResult solve;
  std::size_t fixed_vertices = 0;
};

// Throws InvalidArgument when nothing anchors the mesh (no boundary to fix and no soft anchors).
SmoothingResult smooth_mesh(const TriangleMesh& input, const SmoothingOptions& options);

}  // namespace tilegrad::mesh
