// Preconditioned conjugate gradients (a diagonal preconditioner, or any given one), on either device.
#include <cmath>

#include "tilegrad/ad/solvers.h"
#include "tilegrad/ad/vector_ops.h"

namespace tilegrad {

template <class T>
PcgResult pcg(const std::function<void(View<const T>, View<T>)>& apply, View<const T> inverse_diagonal,
              View<const T> b, View<T> x, const PcgOptions& options) {
  check_view(inverse_diagonal, b.size(), b.device, "pcg: inverse diagonal");
  return pcg<T>(
      apply, [&](View<const T> r, View<T> z) { blas::multiply(inverse_diagonal, r, z); }, b, x, options);
}

template <class T>
PcgResult pcg(const std::function<void(View<const T>, View<T>)>& apply,
              const std::function<void(View<const T>, View<T>)>& precondition, View<const T> b, View<T> x,
              const PcgOptions& options) {
  const std::size_t n = b.size();
  const Device device = b.device;
  check_view(x, n, device, "pcg: x");
  PcgResult result;
  blas::fill(x, 0.0);
  const double b_norm = std::sqrt(blas::squared_norm(b));
  if (b_norm == 0.0) {
    result.converged = true;
    return result;
  }
  Buffer<T> r = Buffer<T>::from(b, device), z(n, device), p(n, device), ap(n, device);
  precondition(r.cview(), z.view());
  blas::copy(z.cview(), p.view());
  double rz = blas::dot(r.cview(), z.cview());
  result.relative_residual = 1.0;
  for (result.iterations = 0; result.iterations < options.max_iterations;) {
    apply(p.cview(), ap.view());
    const double curvature = blas::dot(p.cview(), ap.cview());
    if (!(curvature > 0.0)) {
      // Not positive definite along p: keep what was found, or the preconditioned gradient when nothing was.
      result.negative_curvature = true;
      if (result.iterations == 0) blas::copy(z.cview(), x);
      return result;
    }
    const double alpha = rz / curvature;
    blas::axpy(alpha, p.cview(), x);
    blas::axpy(-alpha, ap.cview(), r.view());
    ++result.iterations;
    result.relative_residual = std::sqrt(blas::squared_norm(r.cview())) / b_norm;
    if (result.relative_residual <= options.relative_tolerance) {
      result.converged = true;
      return result;
    }
    precondition(r.cview(), z.view());
    const double rz_next = blas::dot(r.cview(), z.cview());
    blas::xpby(z.cview(), rz_next / rz, p.view());
    rz = rz_next;
  }
  return result;
}

template PcgResult pcg<float>(const std::function<void(View<const float>, View<float>)>&, View<const float>,
                              View<const float>, View<float>, const PcgOptions&);
template PcgResult pcg<float>(const std::function<void(View<const float>, View<float>)>&,
                              const std::function<void(View<const float>, View<float>)>&, View<const float>,
                              View<float>, const PcgOptions&);
template PcgResult pcg<double>(const std::function<void(View<const double>, View<double>)>&,
                               const std::function<void(View<const double>, View<double>)>&, View<const double>,
                               View<double>, const PcgOptions&);
template PcgResult pcg<double>(const std::function<void(View<const double>, View<double>)>&, View<const double>,
                               View<const double>, View<double>, const PcgOptions&);

}  // namespace tilegrad
