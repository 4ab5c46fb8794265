// The mesh energies as terms of an element problem, built from a mesh's connectivity and rest geometry. Each
// returns the term's index (for set_term_data). Compiled as CUDA when the backend is on, so the terms run on
// either device. Instantiated for float and double, except the inertia and sphere terms (double only).
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/ad/element_problem.h"
#include "tilegrad/mesh/element_data.h"

namespace tilegrad::mesh {

// Smoothing: weight |x_i - x_j|^2 per edge; the cotangent Dirichlet energy of `rest` per triangle.
template <class T>
int add_uniform_dirichlet(ElementProblem<T, 3>& problem, const TriangleMesh& mesh, double weight = 1.0);
template <class T>
int add_cotangent_dirichlet(ElementProblem<T, 3>& problem, const TriangleMesh& rest, double weight = 1.0);
// weight |x_v - target_v|^2 for the listed vertices (all when empty), targets from `targets`.
template <class T>
int add_soft_anchors(ElementProblem<T, 3>& problem, const TriangleMesh& targets,
                     const std::vector<std::uint32_t>& vertices, double weight);

// Parameterization: symmetric Dirichlet of the uv map of `rest` (uv variables, D = 2).
template <class T>
int add_symmetric_dirichlet(ElementProblem<T, 2>& problem, const TriangleMesh& rest, double area_scale = 1.0);

// Spherical embedding on tangent-space variables (D = 2): the distortion (with the inversion barrier) or the
// finite untangling energy, with data from sphere_triangles().
template <class T>
int add_spherical_symmetric_dirichlet(ElementProblem<T, 2>& problem, const TriangleMesh& mesh,
                                      const std::vector<SphereTriangle<T>>& data);
template <class T>
int add_sphere_untangling(ElementProblem<T, 2>& problem, const TriangleMesh& mesh,
                          const std::vector<SphereTriangle<T>>& data, double epsilon);

// Cloth: springs on every edge of `rest`, discrete-shell bending on every interior edge, and the inertia +
// gravity of implicit Euler per vertex (data: mass and predicted position, updated every step).
template <class T>
int add_springs(ElementProblem<T, 3>& problem, const TriangleMesh& rest, const std::vector<std::uint32_t>& edges,
                double stiffness);
template <class T>
int add_bending(ElementProblem<T, 3>& problem, const TriangleMesh& rest, const std::vector<std::uint32_t>& diamonds,
                double stiffness);
template <class T>
int add_inertia_gravity(ElementProblem<T, 3>& problem, const std::vector<VertexMass<T>>& masses, double time_step,
                        double gravity);

}  // namespace tilegrad::mesh
