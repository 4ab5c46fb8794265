// What the solvers minimise: a scalar function of n variables on one device, with its gradient, sparse
// Hessian, Hessian diagonal and Hessian-vector product. ElementProblem implements it; applications wrap one
// to add state (a retraction onto a manifold, a moving base point).
#pragma once
#include <memory>

#include "tilegrad/ad/sparse_matrix.h"
#include "tilegrad/core/buffer.h"

namespace tilegrad {

template <class T>
class SparseCholesky;

template <class T>
class Objective {
 public:
  virtual ~Objective() = default;

  virtual std::size_t size() const = 0;
  virtual Device device() const = 0;

  // The value; +infinity where x is inadmissible (an inverted element).
  virtual double value(View<const T> x) = 0;
  // Writes the gradient into g and returns the value.
  virtual double gradient(View<const T> x, View<T> g) = 0;
  virtual const CsrMatrix<T>& hessian(View<const T> x) = 0;
  virtual void hessian_diagonal(View<const T> x, View<T> d) = 0;
  // out = H(x) v, without forming H.
  virtual void hvp(View<const T> x, View<const T> v, View<T> out) = 0;

  // Called by the solvers after every accepted step. An objective over a manifold moves its base point here
  // and resets x (tangent-space variables); returns true when it did, so that the solver drops curvature
  // history tied to the old coordinates.
  virtual bool accept(View<T> x) {
    (void)x;
    return false;
  }

  // An objective whose hessian() projects element Hessians to positive semi-definite (for Newton on
  // non-convex energies) says so here and gives the exact Hessian (same pattern) on request: Newton's direct
  // solver takes exact steps where that one is positive definite, near a minimum, where projected steps creep.
  virtual bool projects_hessian() const { return false; }
  virtual const CsrMatrix<T>& exact_hessian(View<const T> x) { return hessian(x); }

  // Newton's direct solver keeps its factorisation here, so that its symbolic part (ordering, elimination
  // tree) is reused by every solve of this objective while the Hessian's pattern stays the same (the cloth
  // solves once per time step). Created on first use.
  std::shared_ptr<SparseCholesky<T>> cholesky_cache;
};

}  // namespace tilegrad
