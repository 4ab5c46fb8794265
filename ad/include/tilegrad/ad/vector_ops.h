// Dense vector operations on either device, for the solvers. Reductions accumulate in double over a fixed
// partition of the vector, so they return the same bits on every run (CPU: any thread count).
#pragma once
#include <cstdint>
#include <type_traits>

#include "tilegrad/core/buffer.h"

namespace tilegrad::blas {

// Inputs take ConstView<T>: T is deduced from the output, and a View<T> converts.
template <class T>
struct NonDeduced {
  using type = T;
};
template <class T>
using ConstView = View<const typename NonDeduced<T>::type>;

namespace detail {
template <class T>
double dot(View<const T> a, View<const T> b);
template <class T>
double max_abs(View<const T> a);
template <class T>
double sum(View<const T> a);
template <class T>
bool all_finite(View<const T> x);
}  // namespace detail

template <class A, class B>
double dot(View<A> a, View<B> b) {
  using T = std::remove_const_t<A>;
  static_assert(std::is_same_v<T, std::remove_const_t<B>>, "dot of vectors of different scalar types");
  return detail::dot<T>(View<const T>(a), View<const T>(b));
}
template <class A>
double squared_norm(View<A> a) {
  return dot(a, a);
}
template <class A>
double max_abs(View<A> a) {
  return detail::max_abs<std::remove_const_t<A>>(a);
}
// Sum of all entries.
template <class A>
double sum(View<A> a) {
  return detail::sum<std::remove_const_t<A>>(a);
}
// True when every entry is finite.
template <class A>
bool all_finite(View<A> a) {
  return detail::all_finite<std::remove_const_t<A>>(a);
}

// y += alpha x
template <class T>
void axpy(double alpha, ConstView<T> x, View<T> y);
// y = x + beta y
template <class T>
void xpby(ConstView<T> x, double beta, View<T> y);
// y = alpha x (x may be y)
template <class T>
void scaled_copy(double alpha, ConstView<T> x, View<T> y);
// z = x .* y
template <class T>
void multiply(ConstView<T> x, ConstView<T> y, View<T> z);
// y = 1 / max(|x|, floor): the Jacobi preconditioner of a diagonal x.
template <class T>
void safe_reciprocal(ConstView<T> x, double floor, View<T> y);
template <class T>
void fill(View<T> x, double value);
template <class T>
void copy(ConstView<T> x, View<T> y);
// x[i] = value where mask[i] != 0.
template <class T>
void mask_fill(View<T> x, View<const std::uint8_t> mask, double value);
// y[i] = x[i] where mask[i] != 0.
template <class T>
void mask_copy(ConstView<T> x, View<const std::uint8_t> mask, View<T> y);

}  // namespace tilegrad::blas
