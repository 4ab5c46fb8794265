// Parameterization term (terms.h): symmetric Dirichlet of the uv map.
#include "tilegrad/mesh/terms.h"

namespace tilegrad::mesh {

template <class T>
int add_symmetric_dirichlet(ElementProblem<T, 2>& problem, const TriangleMesh& rest, double area_scale) {
  return problem.template add_term<3>("symmetric dirichlet", rest.triangles, SymmetricDirichlet<T>{},
                                      rest_triangles<T>(rest, area_scale));
}

template int add_symmetric_dirichlet<float>(ElementProblem<float, 2>&, const TriangleMesh&, double);
template int add_symmetric_dirichlet<double>(ElementProblem<double, 2>&, const TriangleMesh&, double);

}  // namespace tilegrad::mesh
