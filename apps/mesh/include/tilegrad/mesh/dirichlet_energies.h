// Smoothing energies as element energies (written once over the scalar, see ad/element_energy.h): the uniform
// Dirichlet energy per edge, the cotangent-weighted one per triangle, and soft anchors per vertex.
#pragma once
#include "tilegrad/ad/element_energy.h"

namespace tilegrad::mesh {

// w |x_i - x_j|^2 over an edge (K = 2) of D-dimensional variables.
template <class T, int D = 3>
struct EdgeDirichlet {
  T weight = T(1);
  template <class S>
  TG_HD S operator()(const Vec<S, 2 * D>& x, const NoElementData&) const {
    S e = sqr(x[0] - x[D]);
    TG_UNROLL for (int c = 1; c < D; ++c) e += sqr(x[c] - x[D + c]);
    return e * weight;
  }
};

// Per triangle: weights[k] = cot(angle at corner k) / 4 of the rest triangle, so that the sum over triangles of
// sum_k weights[k] |x_{k+1} - x_{k+2}|^2 is the Dirichlet energy 1/2 sum_edges (cot a + cot b)/2 |x_i - x_j|^2,
// whose Hessian is the cotangent Laplacian (x) I.
template <class T>
struct CotangentWeights {
  T weights[3];
};

template <class T>
struct CotangentDirichlet {
  T scale = T(1);
  template <class S>
  TG_HD S operator()(const Vec<S, 9>& x, const CotangentWeights<T>& c) const {
    S e = S(T(0));
    TG_UNROLL for (int k = 0; k < 3; ++k) {
      const int a = (k + 1) % 3, b = (k + 2) % 3;
      e += (sqr(x[3 * a] - x[3 * b]) + sqr(x[3 * a + 1] - x[3 * b + 1]) + sqr(x[3 * a + 2] - x[3 * b + 2])) *
           (c.weights[k] * scale);
    }
    return e;
  }
};

// w |x - target|^2 on a vertex (K = 1, D = 3).
template <class T>
struct AnchorTarget {
  T target[3];
};

template <class T>
struct SoftAnchor {
  T weight = T(1);
  template <class S>
  TG_HD S operator()(const Vec<S, 3>& x, const AnchorTarget<T>& a) const {
    return (sqr(x[0] - a.target[0]) + sqr(x[1] - a.target[1]) + sqr(x[2] - a.target[2])) * weight;
  }
};

}  // namespace tilegrad::mesh
