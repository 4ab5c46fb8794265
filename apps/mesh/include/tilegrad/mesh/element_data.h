// Per-element data of the mesh energies, computed from a rest mesh on the host: cotangent weights, rest
// triangles (optionally scaled in area), spring rest lengths, hinge weights and tangent-space sphere triangles.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/cloth_energies.h"
#include "tilegrad/mesh/dirichlet_energies.h"
#include "tilegrad/mesh/distortion_energies.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

template <class T>
std::vector<CotangentWeights<T>> cotangent_weights(const TriangleMesh& rest);
// Throws InvalidArgument naming the first degenerate triangle.
template <class T>
std::vector<RestTriangle<T>> rest_triangles(const TriangleMesh& rest, double area_scale = 1.0);
// Lengths of the edges [E, 2]; throws on a zero-length edge.
template <class T>
std::vector<T> rest_lengths(const TriangleMesh& rest, const std::vector<std::uint32_t>& edges);
// Weight 3 |e|^2 / (A1 + A2) and rest dihedral angle of each diamond [I, 4].
template <class T>
std::vector<HingeRest<T>> hinge_rests(const TriangleMesh& rest, const std::vector<std::uint32_t>& diamonds);

// Orthonormal tangent vectors of the unit sphere at p (|p| = 1), continuous except near p = (0, 0, -1).
void sphere_tangents(const double p[3], double t0[3], double t1[3]);
// The sphere triangles at the current points [V, 3] (on the unit sphere) with the given rest shapes.
template <class T>
std::vector<SphereTriangle<T>> sphere_triangles(const TriangleMesh& rest, const std::vector<double>& points,
                                                const std::vector<RestTriangle<T>>& rest_shapes);

}  // namespace tilegrad::mesh
