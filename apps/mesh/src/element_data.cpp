// Per-element data of the mesh energies (element_data.h).
#include "tilegrad/mesh/element_data.h"

#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/core/vec.h"
#include "tilegrad/mesh/geometry.h"

namespace tilegrad::mesh {
namespace {

Vec3<double> point(const TriangleMesh& m, std::uint32_t v) {
  return {{m.vertices[3 * v], m.vertices[3 * v + 1], m.vertices[3 * v + 2]}};
}

// Dihedral angle of the diamond as DiscreteShellBending measures it.
double dihedral_angle(const Vec3<double>& x0, const Vec3<double>& x1, const Vec3<double>& x2, const Vec3<double>& x3) {
  const Vec3<double> e = x1 - x0;
  const Vec3<double> n1 = cross(e, x2 - x0), n2 = cross(x0 - x1, x3 - x1);
  return std::atan2(dot(cross(n1, n2), e) / norm(e), dot(n1, n2));
}

}  // namespace

template <class T>
std::vector<CotangentWeights<T>> cotangent_weights(const TriangleMesh& rest) {
  const std::vector<double> cot = corner_cotangents(rest);
  std::vector<CotangentWeights<T>> w(rest.triangle_count());
  for (std::size_t f = 0; f < w.size(); ++f) {
    for (int k = 0; k < 3; ++k) {
      TG_CHECK_ARG(std::isfinite(cot[3 * f + k]), "cotangent weights: triangle ", f, " is degenerate");
      w[f].weights[k] = static_cast<T>(0.25 * cot[3 * f + k]);
    }
  }
  return w;
}

template <class T>
std::vector<RestTriangle<T>> rest_triangles(const TriangleMesh& rest, double area_scale) {
  std::vector<RestTriangle<T>> r(rest.triangle_count());
  const double length_scale = std::sqrt(area_scale);
  for (std::size_t f = 0; f < r.size(); ++f) {
    const RestTriangle<double> d = rest_triangle<double>(rest, f);
    for (int k = 0; k < 4; ++k) r[f].rest_inverse[k] = static_cast<T>(d.rest_inverse[k] / length_scale);
    r[f].area = static_cast<T>(d.area * area_scale);
  }
  return r;
}

template <class T>
std::vector<T> rest_lengths(const TriangleMesh& rest, const std::vector<std::uint32_t>& edges) {
  std::vector<T> l(edges.size() / 2);
  for (std::size_t e = 0; e < l.size(); ++e) {
    const double length = norm(point(rest, edges[2 * e]) - point(rest, edges[2 * e + 1]));
    TG_CHECK_ARG(length > 0.0, "rest lengths: edge ", e, " (", edges[2 * e], ", ", edges[2 * e + 1],
                 ") has zero length");
    l[e] = static_cast<T>(length);
  }
  return l;
}

template <class T>
std::vector<HingeRest<T>> hinge_rests(const TriangleMesh& rest, const std::vector<std::uint32_t>& diamonds) {
  std::vector<HingeRest<T>> h(diamonds.size() / 4);
  for (std::size_t i = 0; i < h.size(); ++i) {
    const Vec3<double> x0 = point(rest, diamonds[4 * i]), x1 = point(rest, diamonds[4 * i + 1]),
                       x2 = point(rest, diamonds[4 * i + 2]), x3 = point(rest, diamonds[4 * i + 3]);
    const Vec3<double> e = x1 - x0;
    const double areas = 0.5 * (norm(cross(e, x2 - x0)) + norm(cross(x0 - x1, x3 - x1)));
    TG_CHECK_ARG(areas > 0.0, "hinge weights: the triangles around edge (", diamonds[4 * i], ", ", diamonds[4 * i + 1],
                 ") are degenerate");
    h[i].weight = static_cast<T>(3.0 * dot(e, e) / areas);
    h[i].rest_angle = static_cast<T>(dihedral_angle(x0, x1, x2, x3));
  }
  return h;
}

void sphere_tangents(const double p[3], double t0[3], double t1[3]) {
  // Branchless orthonormal basis (Duff et al. 2017) around the normal p.
  const double sign = std::copysign(1.0, p[2]);
  const double a = -1.0 / (sign + p[2]), b = p[0] * p[1] * a;
  t0[0] = 1.0 + sign * p[0] * p[0] * a;
  t0[1] = sign * b;
  t0[2] = -sign * p[0];
  t1[0] = b;
  t1[1] = sign + p[1] * p[1] * a;
  t1[2] = -p[1];
}

template <class T>
std::vector<SphereTriangle<T>> sphere_triangles(const TriangleMesh& rest, const std::vector<double>& points,
                                                const std::vector<RestTriangle<T>>& rest_shapes) {
  TG_CHECK_ARG(points.size() == rest.vertices.size(), "sphere triangles: ", points.size() / 3, " points for ",
               rest.vertex_count(), " vertices");
  std::vector<SphereTriangle<T>> s(rest.triangle_count());
  for (std::size_t f = 0; f < s.size(); ++f) {
    for (int k = 0; k < 3; ++k) {
      const double* p = &points[3 * rest.triangles[3 * f + k]];
      double t0[3], t1[3];
      sphere_tangents(p, t0, t1);
      for (int c = 0; c < 3; ++c) {
        s[f].base[k][c] = static_cast<T>(p[c]);
        s[f].tangent[k][0][c] = static_cast<T>(t0[c]);
        s[f].tangent[k][1][c] = static_cast<T>(t1[c]);
      }
    }
    s[f].rest = rest_shapes[f];
  }
  return s;
}

#define TG_INSTANTIATE(T)                                                                                        \
  template std::vector<CotangentWeights<T>> cotangent_weights<T>(const TriangleMesh&);                           \
  template std::vector<RestTriangle<T>> rest_triangles<T>(const TriangleMesh&, double);                          \
  template std::vector<T> rest_lengths<T>(const TriangleMesh&, const std::vector<std::uint32_t>&);              \
  template std::vector<HingeRest<T>> hinge_rests<T>(const TriangleMesh&, const std::vector<std::uint32_t>&);     \
  template std::vector<SphereTriangle<T>> sphere_triangles<T>(const TriangleMesh&, const std::vector<double>&, \
                                                              const std::vector<RestTriangle<T>>&);
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::mesh
