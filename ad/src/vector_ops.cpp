// Dense vector operations: argument checks and dispatch to the CPU or CUDA backend; reductions finish on the
// host over the backend's fixed partition, in partition order.
#include "tilegrad/ad/vector_ops.h"

#include <vector>

#include "element_backend.h"

namespace tilegrad::blas {
namespace {

using blas_math::MapOp;
using blas_math::ReduceOp;

template <class T>
void run_map(MapOp op, std::size_t n, Device device, double alpha, const T* x, const T* y, const std::uint8_t* mask,
             T* out) {
  if (device == Device::Cpu) return element_backend::map_cpu(op, n, alpha, x, y, mask, out);
#if TILEGRAD_WITH_CUDA
  element_backend::map_cuda(op, n, alpha, x, y, mask, out);
#else
  element_backend::no_cuda_backend("CUDA vector operation");
#endif
}

template <class T>
double run_reduce(ReduceOp op, View<const T> a, const T* b) {
  if (a.empty()) return 0.0;
  std::vector<double> partials(static_cast<std::size_t>(blas_math::parts_for(a.size())));
  if (a.device == Device::Cpu) {
    element_backend::reduce_cpu(op, a.size(), a.data(), b, partials.data());
  } else {
#if TILEGRAD_WITH_CUDA
    Buffer<double> d_partials(partials.size(), Device::Cuda);
    element_backend::reduce_cuda(op, a.size(), a.data(), b, d_partials.data());
    partials = d_partials.to_vector();
#else
    element_backend::no_cuda_backend("CUDA vector operation");
#endif
  }
  double r = 0.0;
  for (double p : partials) r = blas_math::combine(op, r, p);
  return r;
}

template <class T, class U>
void check_pair(const View<T>& a, const View<U>& b, const char* what) {
  TG_CHECK_ARG(a.size() == b.size(), what, ": sizes differ (", a.size(), " vs ", b.size(), ")");
  TG_CHECK_ARG(a.device == b.device, what, ": vectors on different devices (", to_string(a.device), ", ",
               to_string(b.device), ")");
}

}  // namespace

namespace detail {
template <class T>
double dot(View<const T> a, View<const T> b) {
  check_pair(a, b, "dot");
  return run_reduce(ReduceOp::Dot, a, b.data());
}
template <class T>
double max_abs(View<const T> a) {
  return run_reduce(ReduceOp::MaxAbs, a, static_cast<const T*>(nullptr));
}
template <class T>
double sum(View<const T> a) {
  return run_reduce(ReduceOp::Sum, a, static_cast<const T*>(nullptr));
}
template <class T>
bool all_finite(View<const T> x) {
  return run_reduce(ReduceOp::CountNonFinite, x, static_cast<const T*>(nullptr)) == 0.0;
}
}  // namespace detail

template <class T>
void axpy(double alpha, ConstView<T> x, View<T> y) {
  check_pair(x, y, "axpy");
  run_map<T>(MapOp::Axpy, y.size(), y.device, alpha, x.data(), nullptr, nullptr, y.data());
}
template <class T>
void xpby(ConstView<T> x, double beta, View<T> y) {
  check_pair(x, y, "xpby");
  run_map<T>(MapOp::Xpby, y.size(), y.device, beta, x.data(), nullptr, nullptr, y.data());
}
template <class T>
void scaled_copy(double alpha, ConstView<T> x, View<T> y) {
  check_pair(x, y, "scaled_copy");
  run_map<T>(MapOp::ScaledCopy, y.size(), y.device, alpha, x.data(), nullptr, nullptr, y.data());
}
template <class T>
void multiply(ConstView<T> x, ConstView<T> y, View<T> z) {
  check_pair(x, y, "multiply");
  check_pair(x, z, "multiply");
  run_map<T>(MapOp::Multiply, z.size(), z.device, 0.0, x.data(), y.data(), nullptr, z.data());
}
template <class T>
void safe_reciprocal(ConstView<T> x, double floor, View<T> y) {
  check_pair(x, y, "safe_reciprocal");
  run_map<T>(MapOp::SafeReciprocal, y.size(), y.device, floor, x.data(), nullptr, nullptr, y.data());
}
template <class T>
void fill(View<T> x, double value) {
  run_map<T>(MapOp::Fill, x.size(), x.device, value, nullptr, nullptr, nullptr, x.data());
}
template <class T>
void copy(ConstView<T> x, View<T> y) {
  check_pair(x, y, "copy");
  run_map<T>(MapOp::Copy, y.size(), y.device, 0.0, x.data(), nullptr, nullptr, y.data());
}
template <class T>
void mask_fill(View<T> x, View<const std::uint8_t> mask, double value) {
  check_pair(x, mask, "mask_fill");
  run_map<T>(MapOp::MaskFill, x.size(), x.device, value, nullptr, nullptr, mask.data(), x.data());
}
template <class T>
void mask_copy(ConstView<T> x, View<const std::uint8_t> mask, View<T> y) {
  check_pair(x, y, "mask_copy");
  check_pair(x, mask, "mask_copy");
  run_map<T>(MapOp::MaskCopy, y.size(), y.device, 0.0, x.data(), nullptr, mask.data(), y.data());
}

#define TG_INSTANTIATE(T)                                                 \
  template double detail::dot<T>(View<const T>, View<const T>);           \
  template double detail::max_abs<T>(View<const T>);                      \
  template double detail::sum<T>(View<const T>);                          \
  template bool detail::all_finite<T>(View<const T>);                     \
  template void axpy<T>(double, ConstView<T>, View<T>);                  \
  template void xpby<T>(ConstView<T>, double, View<T>);                  \
  template void scaled_copy<T>(double, ConstView<T>, View<T>);           \
  template void multiply<T>(ConstView<T>, ConstView<T>, View<T>);       \
  template void safe_reciprocal<T>(ConstView<T>, double, View<T>);       \
  template void fill<T>(View<T>, double);                                 \
  template void copy<T>(ConstView<T>, View<T>);                          \
  template void mask_fill<T>(View<T>, View<const std::uint8_t>, double);          \
  template void mask_copy<T>(ConstView<T>, View<const std::uint8_t>, View<T>);
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::blas
