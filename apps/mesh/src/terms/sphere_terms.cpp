// Spherical embedding terms (terms.h): spherical symmetric Dirichlet with its inversion barrier, untangling.
#include "tilegrad/mesh/terms.h"

namespace tilegrad::mesh {

template <class T>
int add_spherical_symmetric_dirichlet(ElementProblem<T, 2>& problem, const TriangleMesh& mesh,
                                      const std::vector<SphereTriangle<T>>& data) {
  return problem.template add_term<3>("spherical symmetric dirichlet", mesh.triangles, SphericalSymmetricDirichlet<T>{},
                                      data);
}

template <class T>
int add_sphere_untangling(ElementProblem<T, 2>& problem, const TriangleMesh& mesh,
                          const std::vector<SphereTriangle<T>>& data, double epsilon) {
  UntangleSphere<T> energy;
  energy.epsilon = static_cast<T>(epsilon);
  return problem.template add_term<3>("sphere untangling", mesh.triangles, energy, data);
}

template int add_spherical_symmetric_dirichlet<double>(ElementProblem<double, 2>&, const TriangleMesh&,
                                                       const std::vector<SphereTriangle<double>>&);
template int add_sphere_untangling<double>(ElementProblem<double, 2>&, const TriangleMesh&,
                                           const std::vector<SphereTriangle<double>>&, double);

}  // namespace tilegrad::mesh
