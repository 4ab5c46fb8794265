// Spherical embedding: a closed genus-0 mesh mapped onto the unit sphere without inverted triangles. Start: the
// mesh cut into two disks along one loop, each Tutte-embedded in the unit disk with the loop shared, lifted onto
// the two hemispheres by inverse stereographic projection. Then, while triangles are inverted, untangling rounds
// with a finite energy of decreasing epsilon; finally Newton on the spherical symmetric Dirichlet energy, whose
// +inf on inverted triangles keeps the line search inside the embeddings. Variables live in each vertex's tangent
// plane and steps retract onto the sphere.
#pragma once
#include <vector>

#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/solve_settings.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

struct SphericalOptions {
  int untangle_rounds = 12;
  int untangle_iterations = 30;  // Newton iterations per untangling round
  SolveSettings solve = default_settings();

  static SolveSettings default_settings() { return projected_newton(100, 1e-9, 1e-8); }
};

struct SphericalResult {
  std::vector<double> points;  // [V, 3], unit length
  std::size_t initial_inverted = 0;
  std::size_t inverted = 0;
  int untangle_rounds = 0;
  double energy = 0;
  double lower_bound = 0;  // 4 x the rest area scaled to the sphere's (4 pi)
  SolveResult solve;
};

// The starting points alone (two Tutte hemispheres).
std::vector<double> hemisphere_tutte(const TriangleMesh& closed, Device device = Device::Cpu);

SphericalResult spherical_embedding(const TriangleMesh& closed, const SphericalOptions& options = {});

}  // namespace tilegrad::mesh
