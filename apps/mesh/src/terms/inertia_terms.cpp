// Implicit Euler inertia and gravity term (terms.h), per vertex.
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/terms.h"

namespace tilegrad::mesh {

template <class T>
int add_inertia_gravity(ElementProblem<T, 3>& problem, const std::vector<VertexMass<T>>& masses, double time_step,
                        double gravity) {
  TG_CHECK_ARG(time_step > 0.0, "inertia: the time step must be positive, got ", time_step);
  TG_CHECK_ARG(masses.size() == problem.num_vertices(), "inertia: ", masses.size(), " masses for ",
               problem.num_vertices(), " vertices");
  std::vector<std::uint32_t> vertices(masses.size());
  for (std::size_t v = 0; v < vertices.size(); ++v) vertices[v] = static_cast<std::uint32_t>(v);
  return problem.template add_term<1>(
      "inertia and gravity", std::move(vertices),
      InertiaGravity<T>{static_cast<T>(1.0 / (time_step * time_step)), static_cast<T>(gravity)}, masses);
}

template int add_inertia_gravity<double>(ElementProblem<double, 3>&, const std::vector<VertexMass<double>>&, double,
                                         double);

}  // namespace tilegrad::mesh
