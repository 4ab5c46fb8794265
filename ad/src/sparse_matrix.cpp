// CSR operations: argument checks and dispatch to the CPU or CUDA backend; host copies for tests and export.
#include "tilegrad/ad/sparse_matrix.h"

#include <algorithm>

#include "element_backend.h"

namespace tilegrad {
template <class T>
T HostCsr<T>::at(std::size_t r, std::size_t c) const {
  const auto begin = columns.begin() + row_offsets[r], end = columns.begin() + row_offsets[r + 1];
  const auto it = std::lower_bound(begin, end, static_cast<std::uint32_t>(c));
  return it != end && *it == c ? values[static_cast<std::size_t>(it - columns.begin())] : T(0);
}

template <class T>
std::vector<T> HostCsr<T>::multiply(const std::vector<T>& x) const {
  TG_CHECK_ARG(x.size() == cols, "HostCsr::multiply: vector of ", x.size(), " entries for ", cols, " columns");
  std::vector<T> y(rows);
  element_backend::csr_multiply_cpu(rows, row_offsets.data(), columns.data(), values.data(), x.data(), y.data());
  return y;
}

template <class T>
HostCsr<T> to_host(const CsrMatrix<T>& a) {
  return {a.rows, a.cols, a.row_offsets.to_vector(), a.columns.to_vector(), a.values.to_vector()};
}

template <class T>
void csr_multiply(const CsrMatrix<T>& a, View<const T> x, View<T> y) {
  check_view(x, a.cols, a.device(), "csr_multiply: x");
  check_view(y, a.rows, a.device(), "csr_multiply: y");
  if (a.device() == Device::Cpu)
    return element_backend::csr_multiply_cpu(a.rows, a.row_offsets.data(), a.columns.data(), a.values.data(),
                                             x.data(), y.data());
#if TILEGRAD_WITH_CUDA
  element_backend::csr_multiply_cuda(a.rows, a.row_offsets.data(), a.columns.data(), a.values.data(), x.data(),
                                     y.data());
#else
  element_backend::no_cuda_backend("CUDA sparse operation");
#endif
}

template <class T>
void csr_diagonal(const CsrMatrix<T>& a, View<T> d) {
  check_view(d, a.rows, a.device(), "csr_diagonal: d");
  TG_CHECK_ARG(a.diagonal.size() == a.rows, "csr_diagonal: the matrix has no diagonal index");
  if (a.device() == Device::Cpu)
    return element_backend::csr_diagonal_cpu(a.rows, a.diagonal.data(), a.values.data(), d.data());
#if TILEGRAD_WITH_CUDA
  element_backend::csr_diagonal_cuda(a.rows, a.diagonal.data(), a.values.data(), d.data());
#else
  element_backend::no_cuda_backend("CUDA sparse operation");
#endif
}

template <class T>
void csr_mask_fixed(CsrMatrix<T>& a, View<const std::uint8_t> fixed) {
  check_view(fixed, a.rows, a.device(), "csr_mask_fixed: fixed");
  TG_CHECK_ARG(a.rows == a.cols, "csr_mask_fixed: the matrix is not square (", a.rows, " x ", a.cols, ")");
  if (a.device() == Device::Cpu)
    return element_backend::csr_mask_cpu(a.rows, a.row_offsets.data(), a.columns.data(), fixed.data(),
                                         a.values.data());
#if TILEGRAD_WITH_CUDA
  element_backend::csr_mask_cuda(a.rows, a.row_offsets.data(), a.columns.data(), fixed.data(), a.values.data());
#else
  element_backend::no_cuda_backend("CUDA sparse operation");
#endif
}

#define TG_INSTANTIATE(T)                                                       \
  template struct HostCsr<T>;                                                   \
  template HostCsr<T> to_host<T>(const CsrMatrix<T>&);                          \
  template void csr_multiply<T>(const CsrMatrix<T>&, View<const T>, View<T>);   \
  template void csr_diagonal<T>(const CsrMatrix<T>&, View<T>);                  \
  template void csr_mask_fixed<T>(CsrMatrix<T>&, View<const std::uint8_t>);
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad
