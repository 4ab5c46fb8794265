// Whole-mesh hand-written gradients (handwritten_gradients.h): argument checks, the CPU loops, and dispatch to
// the CUDA kernels.
#include "tilegrad/mesh/handwritten_gradients.h"

#include "handwritten_backend.h"
#include "tilegrad/ad/element_cpu.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::mesh {
namespace {

template <int D, class T, class Data, class Gradient>
void cpu_pass(View<const std::uint32_t> triangles, View<const Data> data, View<const T> x, View<T> grad,
              Gradient gradient) {
  const auto count = static_cast<std::ptrdiff_t>(data.size());
#pragma omp parallel for schedule(static) if (count > 1024)
  for (std::ptrdiff_t f = 0; f < count; ++f) {
    const std::uint32_t* v = triangles.data() + 3 * f;
    const auto g = gradient(gather_element<3, D>(x.data(), v), data.data()[f]);
    scatter_vector<3, D>(g, v, grad.data(), element_cpu::AtomicAdd{});
  }
}

template <class T, class Data>
void check_args(View<const std::uint32_t> triangles, View<const Data> data, View<const T> x, View<T> grad, int dim,
                const char* who) {
  const Device device = grad.device;
  check_view(triangles, 3 * data.size(), device, who);
  check_view(data, data.size(), device, who);
  check_view(x, grad.size(), device, who);
  TG_CHECK_ARG(grad.size() % dim == 0, who, ": gradient size ", grad.size(), " is not a multiple of ", dim);
}

}  // namespace

template <class T>
void handwritten_cotangent_gradient(View<const std::uint32_t> triangles, View<const CotangentWeights<T>> weights,
                                    T scale, View<const T> x, View<T> grad) {
  check_args(triangles, weights, x, grad, 3, "handwritten cotangent gradient");
  memory::fill_zero(grad.data(), grad.device, grad.bytes());
  if (grad.device == Device::Cpu) {
    cpu_pass<3>(triangles, weights, x, grad, [scale](const Vec<T, 9>& xl, const CotangentWeights<T>& c) {
      return cotangent_dirichlet_gradient(xl, c, scale);
    });
    return;
  }
#if TILEGRAD_WITH_CUDA
  handwritten_backend::cotangent_gradient_cuda(triangles.data(), weights.data(), weights.size(), scale, x.data(),
                                               grad.data());
#else
  throw Unsupported("handwritten gradient on CUDA requested but this build has no CUDA backend");
#endif
}

template <class T>
void handwritten_symmetric_dirichlet_gradient(View<const std::uint32_t> triangles, View<const RestTriangle<T>> rest,
                                              View<const T> uv, View<T> grad) {
  check_args(triangles, rest, uv, grad, 2, "handwritten symmetric Dirichlet gradient");
  memory::fill_zero(grad.data(), grad.device, grad.bytes());
  if (grad.device == Device::Cpu) {
    cpu_pass<2>(triangles, rest, uv, grad,
                [](const Vec<T, 6>& ul, const RestTriangle<T>& r) { return symmetric_dirichlet_gradient(ul, r); });
    return;
  }
#if TILEGRAD_WITH_CUDA
  handwritten_backend::symmetric_dirichlet_gradient_cuda(triangles.data(), rest.data(), rest.size(), uv.data(),
                                                         grad.data());
#else
  throw Unsupported("handwritten gradient on CUDA requested but this build has no CUDA backend");
#endif
}

#define TG_INSTANTIATE(T)                                                                                      \
  template void handwritten_cotangent_gradient<T>(View<const std::uint32_t>, View<const CotangentWeights<T>>, T, \
                                                  View<const T>, View<T>);                                     \
  template void handwritten_symmetric_dirichlet_gradient<T>(View<const std::uint32_t>, View<const RestTriangle<T>>, \
                                                            View<const T>, View<T>);
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::mesh
