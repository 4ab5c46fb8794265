// Compressed sparse row matrices on either device and the few operations the solvers need: y = A x, the
// diagonal, and masking rows and columns of fixed variables.
#pragma once
#include <cstdint>
#include <vector>

#include "tilegrad/core/buffer.h"

namespace tilegrad {

template <class T>
struct CsrMatrix {
  std::size_t rows = 0, cols = 0;
  Buffer<std::uint32_t> row_offsets;  // [rows + 1]
  Buffer<std::uint32_t> columns;      // [nnz], increasing within a row
  Buffer<T> values;                   // [nnz]
  Buffer<std::uint32_t> diagonal;     // [rows]: index of entry (r, r) in values (square patterns only)

  std::size_t nnz() const { return values.size(); }
  Device device() const { return values.device(); }
};

// A host copy in plain vectors, for tests and export.
template <class T>
struct HostCsr {
  std::size_t rows = 0, cols = 0;
  std::vector<std::uint32_t> row_offsets, columns;
  std::vector<T> values;

  T at(std::size_t r, std::size_t c) const;  // 0 outside the pattern
  std::vector<T> multiply(const std::vector<T>& x) const;
};

template <class T>
HostCsr<T> to_host(const CsrMatrix<T>& a);

// y = A x (x, y on the matrix's device, y overwritten).
template <class T>
void csr_multiply(const CsrMatrix<T>& a, View<const T> x, View<T> y);

// d[r] = A(r, r).
template <class T>
void csr_diagonal(const CsrMatrix<T>& a, View<T> d);

// For every variable r with fixed[r] != 0: row r and column r become those of the identity, which decouples
// the fixed variables and keeps a symmetric positive (semi-)definite matrix so.
template <class T>
void csr_mask_fixed(CsrMatrix<T>& a, View<const std::uint8_t> fixed);

}  // namespace tilegrad
