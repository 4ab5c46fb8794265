// Tutte embedding of a disk-topology mesh: the boundary loop on the unit circle by arc length, interior vertices
// at the average of their neighbours (uniform weights). With a convex boundary no triangle is inverted (Tutte's
// theorem). Solved as the minimum of the uniform Dirichlet energy with the boundary fixed, by the element-energy
// layer's Newton/PCG.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/core/device.h"
#include "tilegrad/io/mesh.h"

namespace tilegrad::mesh {

using io::TriangleMesh;

// uv [V, 2] with `boundary` (a loop, mesh on its left) placed counter-clockwise on the unit circle by arc
// length, or, when `boundary_uv` is given ([V, 2], read at the boundary vertices), where it says.
std::vector<double> tutte_embedding(const TriangleMesh& mesh, const std::vector<std::uint32_t>& boundary,
                                    Device device = Device::Cpu, const std::vector<double>* boundary_uv = nullptr);

}  // namespace tilegrad::mesh
