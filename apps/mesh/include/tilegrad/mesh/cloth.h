// Cloth: a square sheet pinned at its two top corners, falling under gravity. Mass-spring stretching,
// discrete-shell bending, implicit Euler steps solved by Newton on the incremental potential.
#pragma once
#include <functional>
#include <vector>

#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/solve_settings.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

struct ClothOptions {
  std::uint32_t resolution = 32;  // cells per side: (resolution + 1)^2 vertices
  double size = 1.0;              // side length (m); the sheet starts flat in the plane z = 0
  double density = 0.2;           // kg / m^2, lumped to the vertices
  double stretch_stiffness = 2000.0;  // N per unit strain (springs)
  double bend_stiffness = 1e-3;       // N m (hinges)
  double gravity = 9.81;              // m / s^2 along -z
  double time_step = 1.0 / 60.0;      // s per frame
  int substeps = 1;                   // implicit Euler steps per frame
  int frames = 60;
  SolveSettings solve = default_settings();

  // Projected: springs under compression make the local Hessians indefinite.
  static SolveSettings default_settings() { return projected_newton(50, 1e-12, 1e-7); }
};

struct ClothFrame {
  int frame = 0;
  double time = 0;
  double kinetic_energy = 0;
  double elastic_energy = 0;  // springs + bending
  double gravity_energy = 0;  // m g z
  double total_energy() const { return kinetic_energy + elastic_energy + gravity_energy; }
  int newton_iterations = 0;  // over the frame's substeps
  bool solves_converged = true;
  // Largest rise of the incremental potential along any Newton solve of the frame (<= 0: it decreased).
  double worst_potential_change = 0;
};

struct ClothResult {
  TriangleMesh mesh;  // connectivity and the last frame's positions
  std::vector<ClothFrame> frames;  // frame 0 is the initial state
};

// Calls on_frame after every frame (and for the initial state) with the frame's summary and mesh.
ClothResult simulate_cloth(const ClothOptions& options,
                           const std::function<void(const ClothFrame&, const TriangleMesh&)>& on_frame = {});

}  // namespace tilegrad::mesh
