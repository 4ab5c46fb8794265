// Symmetric eigen-decomposition of a small matrix (cyclic Jacobi) and projection onto the positive
// semi-definite cone by eigenvalue clamping; used by Newton on non-convex element energies. Host and device.
#pragma once
#include "tilegrad/core/vec.h"

namespace tilegrad {

// A = V diag(lambda) V^T; the columns of `vectors` are the eigenvectors. `a` must be symmetric.
template <class T, int N>
TG_HD void symmetric_eigen(Mat<T, N, N> a, Vec<T, N>& values, Mat<T, N, N>& vectors, int max_sweeps = 32) {
  vectors = Mat<T, N, N>::identity();
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    T off = T(0), diag = T(0);
    for (int p = 0; p < N; ++p) {
      diag += a(p, p) * a(p, p);
      for (int q = p + 1; q < N; ++q) off += a(p, q) * a(p, q);
    }
    // Converged when the off-diagonal mass (sum of squares) is at rounding level next to the diagonal's.
    const T tolerance = sizeof(T) == sizeof(float) ? T(1e-14) : T(1e-30);
    if (!(off > tolerance * diag)) break;
    for (int p = 0; p < N; ++p) {
      for (int q = p + 1; q < N; ++q) {
        const T apq = a(p, q);
        if (apq == T(0)) continue;
        // Rotation angle that zeroes a(p, q) (Golub & Van Loan, symmetric Schur 2x2).
        const T theta = (a(q, q) - a(p, p)) / (T(2) * apq);
        const T t = (theta >= T(0) ? T(1) : T(-1)) / (abs(theta) + sqrt(theta * theta + T(1)));
        const T c = T(1) / sqrt(t * t + T(1)), s = t * c;
        for (int k = 0; k < N; ++k) {  // A <- A J
          const T akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < N; ++k) {  // A <- J^T A
          const T apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
        for (int k = 0; k < N; ++k) {  // V <- V J
          const T vkp = vectors(k, p), vkq = vectors(k, q);
          vectors(k, p) = c * vkp - s * vkq;
          vectors(k, q) = s * vkp + c * vkq;
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) values[i] = a(i, i);
}

// Replaces a symmetric matrix by its nearest matrix with eigenvalues >= min_eigenvalue (in Frobenius norm).
// Returns true when the matrix was changed.
template <class T, int N>
TG_HD bool project_psd(Mat<T, N, N>& a, T min_eigenvalue = T(0)) {
  Vec<T, N> lambda;
  Mat<T, N, N> v;
  symmetric_eigen(a, lambda, v);
  bool changed = false;
  for (int i = 0; i < N; ++i) {
    if (lambda[i] < min_eigenvalue) {
      lambda[i] = min_eigenvalue;
      changed = true;
    }
  }
  if (!changed) return false;
  for (int i = 0; i < N; ++i) {
    for (int j = i; j < N; ++j) {
      T s = T(0);
      for (int k = 0; k < N; ++k) s += v(i, k) * lambda[k] * v(j, k);
      a(i, j) = s;
      a(j, i) = s;
    }
  }
  return true;
}

}  // namespace tilegrad
