// Hand-derived gradients of the cotangent Dirichlet and symmetric Dirichlet energies: the per-triangle formulas
// (host and device) and whole-mesh passes with atomic accumulation on either device. They are the reference
// the AD gradients are timed against, and tests check that both agree.
#pragma once
#include <cstdint>

#include "tilegrad/core/buffer.h"
#include "tilegrad/mesh/dirichlet_energies.h"
#include "tilegrad/mesh/distortion_energies.h"

namespace tilegrad::mesh {

// d/dx of sum_k w_k scale |x_{k+1} - x_{k+2}|^2 (see CotangentDirichlet).
template <class T>
TG_HD Vec<T, 9> cotangent_dirichlet_gradient(const Vec<T, 9>& x, const CotangentWeights<T>& c, T scale) {
  Vec<T, 9> g = Vec<T, 9>::zero();
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    const T w = T(2) * c.weights[k] * scale;
    for (int d = 0; d < 3; ++d) {
      const T f = w * (x[3 * a + d] - x[3 * b + d]);
      g[3 * a + d] += f;
      g[3 * b + d] -= f;
    }
  }
  return g;
}

// Symmetric Dirichlet area |J|^2 (1 + det(J)^-2) with J = Ds M, Ds = [u1 - u0, u2 - u0]:
// dE/dJ = area (2 J (1 + det^-2) - 2 |J|^2 det^-3 cof(J)), dE/dDs = dE/dJ M^T. Zero on inverted triangles, where
// the energy is +inf (as the AD version, whose derivative of a constant is zero).
template <class T>
TG_HD Vec<T, 6> symmetric_dirichlet_gradient(const Vec<T, 6>& u, const RestTriangle<T>& r) {
  const T* m = r.rest_inverse;
  const T a0 = u[2] - u[0], a1 = u[3] - u[1], b0 = u[4] - u[0], b1 = u[5] - u[1];
  Vec<T, 6> g = Vec<T, 6>::zero();
  if (!(a0 * b1 - a1 * b0 > T(0))) return g;
  // J = [[a0, b0], [a1, b1]] M
  const T j00 = a0 * m[0] + b0 * m[2], j01 = a0 * m[1] + b0 * m[3];
  const T j10 = a1 * m[0] + b1 * m[2], j11 = a1 * m[1] + b1 * m[3];
  const T det = j00 * j11 - j01 * j10, inv = T(1) / det;
  const T frob = j00 * j00 + j01 * j01 + j10 * j10 + j11 * j11;
  const T s = T(2) * (T(1) + inv * inv) * r.area, t = T(-2) * frob * inv * inv * inv * r.area;
  const T p00 = s * j00 + t * j11, p01 = s * j01 - t * j10, p10 = s * j10 - t * j01, p11 = s * j11 + t * j00;
  // dE/dDs = P M^T: column 0 is dE/du1, column 1 is dE/du2.
  const T d00 = p00 * m[0] + p01 * m[1], d01 = p00 * m[2] + p01 * m[3];
  const T d10 = p10 * m[0] + p11 * m[1], d11 = p10 * m[2] + p11 * m[3];
  g[2] = d00;
  g[3] = d10;
  g[4] = d01;
  g[5] = d11;
  g[0] = -(d00 + d01);
  g[1] = -(d10 + d11);
  return g;
}

// Whole-mesh gradients: grad (zeroed here) = sum over triangles, one thread per triangle with atomic adds on
// CUDA, OpenMP atomics on the CPU. All views on the same device.
template <class T>
void handwritten_cotangent_gradient(View<const std::uint32_t> triangles, View<const CotangentWeights<T>> weights,
                                    T scale, View<const T> x, View<T> grad);
template <class T>
void handwritten_symmetric_dirichlet_gradient(View<const std::uint32_t> triangles, View<const RestTriangle<T>> rest,
                                              View<const T> uv, View<T> grad);

}  // namespace tilegrad::mesh
