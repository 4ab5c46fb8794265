// ElementProblem: argument checks, the lazily built layouts, and each pass as a sequence of term passes plus
// (Owned) one gather, (Atomic) one zeroing, and the fixed-variable masks.
#include "tilegrad/ad/element_problem.h"

#include <algorithm>

#include "element_backend.h"
#include "element_layout.h"
#include "tilegrad/ad/vector_ops.h"

namespace tilegrad {
namespace {

bool is_owned(Accumulation a) {
  TG_CHECK_ARG(a == Accumulation::Atomic || a == Accumulation::Owned,
               "element assembly supports the atomic and owned strategies, got ", to_string(a));
  return a == Accumulation::Owned;
}

template <class T>
std::vector<element_layout::TermShape> term_shapes(const std::vector<std::unique_ptr<ElementTermBase<T>>>& terms) {
  std::vector<element_layout::TermShape> shapes;
  for (const auto& t : terms) shapes.push_back({t->arity(), &t->host_elements()});
  return shapes;
}

template <class T>
Buffer<T> upload(const std::vector<T>& host, Device device) {
  return Buffer<T>::from(host, device);
}

}  // namespace

template <class T>
struct ElementProblemBase<T>::VertexGather {
  Buffer<std::uint32_t> offsets;
  Buffer<std::uint64_t> sources;
  std::vector<std::uint64_t> term_records;
};

template <class T>
struct ElementProblemBase<T>::HessianLayout {
  Buffer<std::uint32_t> block_row_offsets, block_rows, block_columns, owner_blocks, owner_transposed, source_offsets;
  Buffer<std::uint64_t> sources;
  std::vector<Buffer<std::uint32_t>> element_blocks;
  std::vector<std::uint64_t> term_records;
  CsrMatrix<T> matrix;
};

template <class T>
ElementProblemBase<T>::ElementProblemBase(std::size_t num_vertices, int dim, Device device)
    : m_num_vertices(num_vertices), m_dim(dim), m_device(device) {
  TG_CHECK_ARG(num_vertices > 0, "element problem: needs at least one vertex");
  TG_CHECK_ARG(dim >= 1 && dim <= 4, "element problem: 1 to 4 variables per vertex, got ", dim);
  require_device(device);
  m_fixed_host.assign(size(), 0);
}

template <class T>
ElementProblemBase<T>::~ElementProblemBase() = default;

template <class T>
void ElementProblemBase<T>::check_elements(const char* name, int arity,
                                           const std::vector<std::uint32_t>& elements) const {
  TG_CHECK_ARG(elements.size() % static_cast<std::size_t>(arity) == 0, "term '", name, "': ", elements.size(),
               " vertex indices is not a multiple of the arity ", arity);
  const auto bad = std::find_if(elements.begin(), elements.end(), [&](std::uint32_t v) { return v >= m_num_vertices; });
  TG_CHECK_ARG(bad == elements.end(), "term '", name, "': element ", (bad - elements.begin()) / arity,
               " has vertex index ", bad == elements.end() ? 0 : *bad, " >= the vertex count ", m_num_vertices);
  TG_CHECK_ARG(m_terms.size() < 255, "element problem: too many terms");
}

template <class T>
int ElementProblemBase<T>::add_term_base(std::unique_ptr<ElementTermBase<T>> term) {
  m_terms.push_back(std::move(term));
  m_term_energies.assign(m_terms.size(), 0.0);
  m_partials = Buffer<double>(m_terms.size() * kEnergyPartials, m_device);
  invalidate_layouts();
  return static_cast<int>(m_terms.size() - 1);
}

template <class T>
void ElementProblemBase<T>::set_data_base(int term, const void* host, std::size_t count, const std::type_info& type) {
  TG_CHECK_ARG(term >= 0 && static_cast<std::size_t>(term) < m_terms.size(), "set_term_data: no term ", term, " (",
               m_terms.size(), " terms)");
  m_terms[term]->set_data(host, count, type);
}

template <class T>
void ElementProblemBase<T>::invalidate_layouts() {
  m_vertex_gather.reset();
  m_hessian_layout.reset();
}

template <class T>
void ElementProblemBase<T>::fix_vertices(const std::vector<std::uint32_t>& vertices) {
  std::vector<std::uint32_t> variables;
  variables.reserve(vertices.size() * m_dim);
  for (std::uint32_t v : vertices) {
    TG_CHECK_ARG(v < m_num_vertices, "fix_vertices: vertex ", v, " >= the vertex count ", m_num_vertices);
    for (int c = 0; c < m_dim; ++c) variables.push_back(v * static_cast<std::uint32_t>(m_dim) + c);
  }
  fix_variables(variables);
}

template <class T>
void ElementProblemBase<T>::fix_variables(const std::vector<std::uint32_t>& variables) {
  for (std::uint32_t i : variables) {
    TG_CHECK_ARG(i < size(), "fix_variables: variable ", i, " >= the variable count ", size());
    m_fixed_host[i] = 1;
  }
  m_any_fixed = std::any_of(m_fixed_host.begin(), m_fixed_host.end(), [](std::uint8_t f) { return f != 0; });
  m_fixed = upload(m_fixed_host, m_device);
}

template <class T>
void ElementProblemBase<T>::clear_fixed() {
  m_fixed_host.assign(size(), 0);
  m_any_fixed = false;
  m_fixed = Buffer<std::uint8_t>();
}

template <class T>
void ElementProblemBase<T>::check_vector(View<const T> v, const char* what) const {
  check_view(v, size(), m_device, what);
}

template <class T>
TermPass<T> ElementProblemBase<T>::base_pass(View<const T> x, bool owned) const {
  TermPass<T> pass;
  pass.x = x.data();
  pass.owned = owned;
  pass.project = m_options.project_psd;
  pass.min_eigenvalue = static_cast<T>(m_options.min_eigenvalue);
  return pass;
}

template <class T>
double ElementProblemBase<T>::collect_energies() {
  const std::vector<double> partials = m_partials.to_vector();
  double total = 0.0;
  for (std::size_t t = 0; t < m_terms.size(); ++t) {
    double s = 0.0;
    for (int p = 0; p < kEnergyPartials; ++p) s += partials[t * kEnergyPartials + p];
    m_term_energies[t] = s;
    total += s;
  }
  return total;
}

template <class T>
typename ElementProblemBase<T>::VertexGather& ElementProblemBase<T>::vertex_gather() {
  if (!m_vertex_gather) {
    element_layout::Sources s = element_layout::build_vertex_sources(m_num_vertices, m_dim, term_shapes(m_terms));
    auto g = std::make_unique<VertexGather>();
    g->offsets = upload(s.offsets, m_device);
    g->sources = upload(s.sources, m_device);
    g->term_records = std::move(s.term_records);
    m_vertex_gather = std::move(g);
  }
  return *m_vertex_gather;
}

template <class T>
typename ElementProblemBase<T>::HessianLayout& ElementProblemBase<T>::hessian_layout() {
  if (!m_hessian_layout) {
    element_layout::BlockPattern blocks =
        element_layout::build_block_pattern(m_num_vertices, m_dim, term_shapes(m_terms));
    const element_layout::ScalarPattern scalar = element_layout::expand_blocks(blocks, m_dim);
    auto l = std::make_unique<HessianLayout>();
    l->block_row_offsets = upload(blocks.row_offsets, m_device);
    l->block_rows = upload(blocks.rows, m_device);
    l->block_columns = upload(blocks.columns, m_device);
    l->owner_blocks = upload(blocks.owner_blocks, m_device);
    l->owner_transposed = upload(blocks.owner_transposed, m_device);
    l->source_offsets = upload(blocks.sources.offsets, m_device);
    l->sources = upload(blocks.sources.sources, m_device);
    for (const auto& b : blocks.element_blocks) l->element_blocks.push_back(upload(b, m_device));
    l->term_records = std::move(blocks.sources.term_records);
    CsrMatrix<T>& m = l->matrix;
    m.rows = m.cols = size();
    m.row_offsets = upload(scalar.row_offsets, m_device);
    m.columns = upload(scalar.columns, m_device);
    m.diagonal = upload(scalar.diagonal, m_device);
    m.values = Buffer<T>::zeros(scalar.columns.size(), m_device);
    m_hessian_layout = std::move(l);
  }
  return *m_hessian_layout;
}

template <class T>
void ElementProblemBase<T>::vector_pass(ElementPass which, View<const T> x, const T* direction, View<T> out,
                                        bool with_energy) {
  check_vector(x, "x");
  check_vector(out, "output");
  const bool owned = is_owned(m_options.accumulation);
  TermPass<T> pass = base_pass(x, owned);
  pass.direction = direction;
  if (with_energy) m_partials.zero();
  const VertexGather* gather = owned ? &vertex_gather() : nullptr;
  if (owned) {
    m_records.reserve_discard(gather->term_records.back(), m_device);
  } else {
    blas::fill(out, 0.0);
    pass.out = out.data();
  }
  for (std::size_t t = 0; t < m_terms.size(); ++t) {
    if (owned) pass.records = m_records.data() + gather->term_records[t];
    if (with_energy) pass.energy_partials = m_partials.data() + t * kEnergyPartials;
    m_terms[t]->run(which, pass);
  }
  if (owned) {
    const element_backend::GatherMap map{gather->offsets.data(), gather->sources.data(), m_num_vertices};
    if (m_device == Device::Cpu) {
      element_backend::gather_vertices_cpu(m_dim, map, m_records.data(), out.data());
    } else {
#if TILEGRAD_WITH_CUDA
      element_backend::gather_vertices_cuda(m_dim, map, m_records.data(), out.data());
#else
      element_backend::no_cuda_backend("CUDA element problem");
#endif
    }
  }
}

template <class T>
double ElementProblemBase<T>::value(View<const T> x) {
  check_vector(x, "x");
  m_partials.zero();
  TermPass<T> pass = base_pass(x, false);
  for (std::size_t t = 0; t < m_terms.size(); ++t) {
    pass.energy_partials = m_partials.data() + t * kEnergyPartials;
    m_terms[t]->run(ElementPass::Value, pass);
  }
  return collect_energies();
}

template <class T>
double ElementProblemBase<T>::gradient(View<const T> x, View<T> g) {
  vector_pass(ElementPass::Gradient, x, nullptr, g, true);
  if (m_any_fixed) blas::mask_fill(g, m_fixed.view(), 0.0);
  return collect_energies();
}

template <class T>
void ElementProblemBase<T>::gradient_only(View<const T> x, View<T> g) {
  vector_pass(ElementPass::Gradient, x, nullptr, g, false);
  if (m_any_fixed) blas::mask_fill(g, m_fixed.view(), 0.0);
}

template <class T>
void ElementProblemBase<T>::hessian_diagonal(View<const T> x, View<T> d) {
  vector_pass(ElementPass::HessianDiagonal, x, nullptr, d, false);
  if (m_any_fixed) blas::mask_fill(d, m_fixed.view(), 1.0);
}

template <class T>
void ElementProblemBase<T>::hvp(View<const T> x, View<const T> v, View<T> out) {
  check_vector(v, "v");
  const T* direction = v.data();
  if (m_any_fixed) {  // (P H P + I - P) v: drop the fixed entries of v, pass them through at the end
    m_masked_direction.reset(size(), m_device);
    blas::copy(v, m_masked_direction.view());
    blas::mask_fill(m_masked_direction.view(), m_fixed.view(), 0.0);
    direction = m_masked_direction.data();
  }
  vector_pass(ElementPass::Hvp, x, direction, out, false);
  if (m_any_fixed) blas::mask_copy(v, m_fixed.view(), out);
}

template <class T>
const CsrMatrix<T>& ElementProblemBase<T>::exact_hessian(View<const T> x) {
  const bool project = m_options.project_psd;
  m_options.project_psd = false;
  try {
    hessian(x);
  } catch (...) {
    m_options.project_psd = project;
    throw;
  }
  m_options.project_psd = project;
  return hessian_layout().matrix;
}

template <class T>
const CsrMatrix<T>& ElementProblemBase<T>::hessian(View<const T> x) {
  check_vector(x, "x");
  const bool owned = is_owned(m_options.accumulation);
  HessianLayout& layout = hessian_layout();
  CsrMatrix<T>& m = layout.matrix;
  TermPass<T> pass = base_pass(x, owned);
  if (owned) {
    m_records.reserve_discard(layout.term_records.back(), m_device);
  } else {
    m.values.zero();
    pass.out = m.values.data();
    pass.block_row_offsets = layout.block_row_offsets.data();
  }
  for (std::size_t t = 0; t < m_terms.size(); ++t) {
    if (owned) {
      pass.records = m_records.data() + layout.term_records[t];
    } else {
      pass.element_blocks = layout.element_blocks[t].data();
    }
    m_terms[t]->run(ElementPass::Hessian, pass);
  }
  if (owned) {
    const element_backend::GatherMap map{layout.source_offsets.data(), layout.sources.data(),
                                         layout.owner_blocks.size()};
    const element_backend::BlockOwners owners{layout.owner_blocks.data(), layout.owner_transposed.data(),
                                              layout.block_rows.data(), layout.block_columns.data(),
                                              layout.block_row_offsets.data()};
    if (m_device == Device::Cpu) {
      element_backend::gather_blocks_cpu(m_dim, map, owners, m_records.data(), m.values.data());
    } else {
#if TILEGRAD_WITH_CUDA
      element_backend::gather_blocks_cuda(m_dim, map, owners, m_records.data(), m.values.data());
#else
      element_backend::no_cuda_backend("CUDA element problem");
#endif
    }
  }
  if (m_any_fixed) csr_mask_fixed(m, m_fixed.view());
  return m;
}

template <class T>
const CsrMatrix<T>& ElementProblemBase<T>::matrix() {
  return hessian_layout().matrix;
}

template <class T>
std::size_t ElementProblemBase<T>::memory_bytes() const {
  std::size_t bytes = m_records.bytes() + m_partials.bytes() + m_masked_direction.bytes() + m_fixed.bytes();
  if (m_vertex_gather) bytes += m_vertex_gather->offsets.bytes() + m_vertex_gather->sources.bytes();
  if (const HessianLayout* l = m_hessian_layout.get()) {
    bytes += l->block_row_offsets.bytes() + l->block_rows.bytes() + l->block_columns.bytes() + l->owner_blocks.bytes() +
             l->owner_transposed.bytes() + l->source_offsets.bytes() + l->sources.bytes();
    for (const auto& b : l->element_blocks) bytes += b.bytes();
    bytes += l->matrix.row_offsets.bytes() + l->matrix.columns.bytes() + l->matrix.values.bytes() +
             l->matrix.diagonal.bytes();
  }
  return bytes;
}

template class ElementProblemBase<float>;
template class ElementProblemBase<double>;

}  // namespace tilegrad
