// A direct solver for Newton's systems: the sparse Cholesky factorisation of a symmetric positive definite
// CsrMatrix by CHOLMOD (SuiteSparse), with its fill-reducing ordering and symbolic factorisation computed once
// per sparsity pattern and only the numeric factorisation repeated when the values change.
//
// CHOLMOD runs on the host in double precision. A CUDA matrix is read from device memory (its values each
// factorisation, its pattern once), and the right-hand side and solution travel the same way: the transfers
// are O(nnz) against a factorisation that costs far more (docs/MESH.md). Builds without CHOLMOD (it is
// found at configure time, see docs/ARCHITECTURE.md) report available() == false and refuse to factor.
#pragma once
#include <cstddef>
#include <memory>

#include "tilegrad/ad/sparse_matrix.h"

namespace tilegrad {

struct CholeskyStats {
  int analyses = 0;        // symbolic factorisations (ordering + elimination tree + supernodes)
  int factorizations = 0;  // numeric factorisations, failed attempts included
  std::size_t factor_entries = 0;  // entries of L (of the last factorisation)
  double analyze_seconds = 0, factor_seconds = 0, solve_seconds = 0;
};

template <class T>
class SparseCholesky {
 public:
  // Whether this build has CHOLMOD.
  static bool available();

  SparseCholesky();
  ~SparseCholesky();
  SparseCholesky(const SparseCholesky&) = delete;
  SparseCholesky& operator=(const SparseCholesky&) = delete;

  // Factors A + shift I (A symmetric, square; only its upper triangle is read). The symbolic factorisation is
  // kept while A's pattern stays the same (the same row offset and column buffers, rows and entries: a
  // problem's Hessian keeps its pattern) and redone otherwise. Returns false when the matrix is not positive
  // definite (a non-positive pivot); solve() is then unusable until a factorisation succeeds.
  bool factor(const CsrMatrix<T>& a, double shift = 0.0);
  // x = (A + shift I)^-1 b, on A's device.
  void solve(View<const T> b, View<T> x);

  const CholeskyStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tilegrad
