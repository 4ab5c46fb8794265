// CUDA kernels of the hand-written gradients: one thread per triangle, atomicAdd per component, the way such
// kernels are usually written.
#include "../handwritten_backend.h"
#include "tilegrad/ad/cuda/element_kernels.cuh"
#include "tilegrad/mesh/handwritten_gradients.h"

namespace tilegrad::mesh::handwritten_backend {
namespace {

constexpr unsigned kBlock = 128;

template <class T>
__global__ void cotangent_gradient_kernel(const std::uint32_t* triangles, const CotangentWeights<T>* weights,
                                          std::size_t count, T scale, const T* x, T* grad) {
  const std::size_t f = cuda::global_thread();
  if (f >= count) return;
  const std::uint32_t* v = triangles + 3 * f;
  const Vec<T, 9> g = cotangent_dirichlet_gradient(gather_element<3, 3>(x, v), weights[f], scale);
  scatter_vector<3, 3>(g, v, grad, element_cuda::AtomicAdd{});
}

template <class T>
__global__ void symmetric_dirichlet_gradient_kernel(const std::uint32_t* triangles, const RestTriangle<T>* rest,
                                                    std::size_t count, const T* uv, T* grad) {
  const std::size_t f = cuda::global_thread();
  if (f >= count) return;
  const std::uint32_t* v = triangles + 3 * f;
  const Vec<T, 6> g = symmetric_dirichlet_gradient(gather_element<3, 2>(uv, v), rest[f]);
  scatter_vector<3, 2>(g, v, grad, element_cuda::AtomicAdd{});
}

}  // namespace

template <class T>
void cotangent_gradient_cuda(const std::uint32_t* triangles, const CotangentWeights<T>* weights, std::size_t count,
                             T scale, const T* x, T* grad) {
  cuda::launch(cotangent_gradient_kernel<T>, count, kBlock, nullptr, triangles, weights, count, scale, x, grad);
}

template <class T>
void symmetric_dirichlet_gradient_cuda(const std::uint32_t* triangles, const RestTriangle<T>* rest, std::size_t count,
                                       const T* uv, T* grad) {
  cuda::launch(symmetric_dirichlet_gradient_kernel<T>, count, kBlock, nullptr, triangles, rest, count, uv, grad);
}

#define TG_INSTANTIATE(T)                                                                                           \
  template void cotangent_gradient_cuda<T>(const std::uint32_t*, const CotangentWeights<T>*, std::size_t, T,       \
                                           const T*, T*);                                                           \
  template void symmetric_dirichlet_gradient_cuda<T>(const std::uint32_t*, const RestTriangle<T>*, std::size_t,    \
                                                     const T*, T*);
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::mesh::handwritten_backend
