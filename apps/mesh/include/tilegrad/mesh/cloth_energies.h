// Cloth as element energies for implicit Euler (the incremental potential of one time step): mass-spring
// stretching per edge, discrete-shell bending per edge diamond, and inertia + gravity per vertex.
#pragma once
#include "tilegrad/ad/element_energy.h"

namespace tilegrad::mesh {

// k L (|x_i - x_j| / L - 1)^2 / 2 with rest length L: stiffness per unit strain, independent of resolution.
template <class T>
struct Spring {
  T stiffness = T(1);
  template <class S>
  TG_HD S operator()(const Vec<S, 6>& x, const T& rest_length) const {
    const S length = sqrt(sqr(x[0] - x[3]) + sqr(x[1] - x[4]) + sqr(x[2] - x[5]));
    return sqr(length / rest_length - T(1)) * (stiffness * rest_length * T(0.5));
  }
};

// Discrete shells (Grinspun et al. 2003) on the diamond (x0, x1, x2, x3): edge x0 -> x1, x2 opposite it in
// triangle (x0, x1, x2), x3 opposite it in triangle (x1, x0, x3). The energy is
// stiffness weight (theta - rest_angle)^2, weight = 3 |e|^2 / (A1 + A2) from the rest state, theta the signed
// dihedral angle (0 when flat).
template <class T>
struct HingeRest {
  T weight;
  T rest_angle;
};

template <class S>
TG_HD Vec3<S> vertex_of(const Vec<S, 12>& x, int k) {
  return {{x[3 * k], x[3 * k + 1], x[3 * k + 2]}};
}

template <class T>
struct DiscreteShellBending {
  T stiffness = T(1);
  template <class S>
  TG_HD S operator()(const Vec<S, 12>& x, const HingeRest<T>& h) const {
    const Vec3<S> x0 = vertex_of(x, 0), x1 = vertex_of(x, 1), x2 = vertex_of(x, 2), x3 = vertex_of(x, 3);
    const Vec3<S> e = x1 - x0;
    const Vec3<S> n1 = cross(e, x2 - x0), n2 = cross(x0 - x1, x3 - x1);
    const S theta = atan2(dot(cross(n1, n2), e) / norm(e), dot(n1, n2));
    return sqr(theta - h.rest_angle) * (stiffness * h.weight);
  }
};

// m / (2 h^2) |x - predicted|^2 + m g z: the inertia of one implicit Euler step (predicted = x_n + h v_n) and
// gravity along -z.
template <class T>
struct VertexMass {
  T mass;
  T predicted[3];
};

template <class T>
struct InertiaGravity {
  T inverse_step_squared = T(1);  // 1 / h^2
  T gravity = T(9.81);
  template <class S>
  TG_HD S operator()(const Vec<S, 3>& x, const VertexMass<T>& m) const {
    const S inertia = sqr(x[0] - m.predicted[0]) + sqr(x[1] - m.predicted[1]) + sqr(x[2] - m.predicted[2]);
    return inertia * (m.mass * inverse_step_squared * T(0.5)) + x[2] * (m.mass * gravity);
  }
};

}  // namespace tilegrad::mesh
