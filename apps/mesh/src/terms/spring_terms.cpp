// Cloth stretching term (terms.h): mass-spring energy per edge.
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/terms.h"

namespace tilegrad::mesh {

template <class T>
int add_springs(ElementProblem<T, 3>& problem, const TriangleMesh& rest, const std::vector<std::uint32_t>& edges,
                double stiffness) {
  return problem.template add_term<2>("springs", edges, Spring<T>{static_cast<T>(stiffness)},
                                      rest_lengths<T>(rest, edges));
}

template int add_springs<float>(ElementProblem<float, 3>&, const TriangleMesh&, const std::vector<std::uint32_t>&,
                                double);
template int add_springs<double>(ElementProblem<double, 3>&, const TriangleMesh&, const std::vector<std::uint32_t>&,
                                 double);

}  // namespace tilegrad::mesh
