// Cloth bending term (terms.h): discrete shells per edge diamond.
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/terms.h"

namespace tilegrad::mesh {

template <class T>
int add_bending(ElementProblem<T, 3>& problem, const TriangleMesh& rest, const std::vector<std::uint32_t>& diamonds,
                double stiffness) {
  return problem.template add_term<4>("bending", diamonds, DiscreteShellBending<T>{static_cast<T>(stiffness)},
                                      hinge_rests<T>(rest, diamonds));
}

template int add_bending<float>(ElementProblem<float, 3>&, const TriangleMesh&, const std::vector<std::uint32_t>&,
                                double);
template int add_bending<double>(ElementProblem<double, 3>&, const TriangleMesh&, const std::vector<std::uint32_t>&,
                                 double);

}  // namespace tilegrad::mesh
