// Internal: the CUDA launchers of the hand-written gradients (arguments checked by the caller).
#pragma once
#include <cstdint>

#include "tilegrad/mesh/dirichlet_energies.h"
#include "tilegrad/mesh/distortion_energies.h"

namespace tilegrad::mesh::handwritten_backend {

template <class T>
void cotangent_gradient_cuda(const std::uint32_t* triangles, const CotangentWeights<T>* weights, std::size_t count,
                             T scale, const T* x, T* grad);
template <class T>
void symmetric_dirichlet_gradient_cuda(const std::uint32_t* triangles, const RestTriangle<T>* rest, std::size_t count,
                                       const T* uv, T* grad);

}  // namespace tilegrad::mesh::handwritten_backend
