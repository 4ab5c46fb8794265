// Smoothing terms (terms.h): uniform and cotangent Dirichlet, soft anchors.
#include <numeric>

#include "tilegrad/core/error.h"
#include "tilegrad/mesh/terms.h"
#include "tilegrad/mesh/topology.h"

namespace tilegrad::mesh {

template <class T>
int add_uniform_dirichlet(ElementProblem<T, 3>& problem, const TriangleMesh& mesh, double weight) {
  return problem.template add_term<2>("uniform dirichlet", build_topology(mesh).edges,
                                      EdgeDirichlet<T, 3>{static_cast<T>(weight)});
}

template <class T>
int add_cotangent_dirichlet(ElementProblem<T, 3>& problem, const TriangleMesh& rest, double weight) {
  return problem.template add_term<3>("cotangent dirichlet", rest.triangles,
                                      CotangentDirichlet<T>{static_cast<T>(weight)}, cotangent_weights<T>(rest));
}

template <class T>
int add_soft_anchors(ElementProblem<T, 3>& problem, const TriangleMesh& targets,
                     const std::vector<std::uint32_t>& vertices, double weight) {
  std::vector<std::uint32_t> chosen = vertices;
  if (chosen.empty()) {
    chosen.resize(targets.vertex_count());
    std::iota(chosen.begin(), chosen.end(), 0u);
  }
  std::vector<AnchorTarget<T>> data(chosen.size());
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    TG_CHECK_ARG(chosen[i] < targets.vertex_count(), "soft anchors: vertex ", chosen[i], " out of range");
    for (int c = 0; c < 3; ++c) data[i].target[c] = static_cast<T>(targets.vertices[3 * chosen[i] + c]);
  }
  return problem.template add_term<1>("soft anchors", std::move(chosen), SoftAnchor<T>{static_cast<T>(weight)}, data);
}

#define TG_INSTANTIATE(T)                                                                                         \
  template int add_uniform_dirichlet<T>(ElementProblem<T, 3>&, const TriangleMesh&, double);                      \
  template int add_cotangent_dirichlet<T>(ElementProblem<T, 3>&, const TriangleMesh&, double);                    \
  template int add_soft_anchors<T>(ElementProblem<T, 3>&, const TriangleMesh&, const std::vector<std::uint32_t>&, \
                                   double);
TG_INSTANTIATE(float)
TG_INSTANTIATE(double)
#undef TG_INSTANTIATE

}  // namespace tilegrad::mesh
