// The element-energy problem: V vertices with D variables each, and terms that add an energy over sets of
// elements (vertices, edges, triangles, tetrahedra or edge diamonds). Gives the energy, its gradient, the sparse
// Hessian in CSR (pattern built once from the connectivity), the Hessian diagonal and Hessian-vector products,
// on the CPU or CUDA, with Atomic or Owned (lock-free, bitwise deterministic) assembly.
//
//   ElementProblem<double, 3> problem(num_vertices, Device::Cpu);
//   problem.add_term<2>("springs", edges, Spring{}, rest_lengths);  // Spring: operator()(Vec<S, 6>, const Data&)
//   double e = problem.gradient(x, g);
//   const CsrMatrix<double>& h = problem.hessian(x);
#pragma once
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/ad/element_term.h"
#include "tilegrad/ad/objective.h"

namespace tilegrad {

struct AssemblyOptions {
  // Atomic: adds in whatever order threads run. Owned: element results go to records that every owner (vertex,
  // Hessian block) sums in a fixed order; the same bits on every run.
  Accumulation accumulation = Accumulation::Owned;
  // Per-element projection of the local Hessian onto eigenvalues >= min_eigenvalue (Hessian, its diagonal
  // and the HVP), for Newton on non-convex energies.
  bool project_psd = false;
  double min_eigenvalue = 0.0;
};

template <class T>
class ElementProblemBase : public Objective<T> {
 public:
  ElementProblemBase(std::size_t num_vertices, int dim, Device device);
  ~ElementProblemBase() override;

  std::size_t num_vertices() const { return m_num_vertices; }
  int dim() const { return m_dim; }
  std::size_t size() const override { return m_num_vertices * static_cast<std::size_t>(m_dim); }
  Device device() const override { return m_device; }
  std::size_t term_count() const { return m_terms.size(); }
  const ElementTermBase<T>& term(std::size_t i) const { return *m_terms.at(i); }

  AssemblyOptions& options() { return m_options; }
  const AssemblyOptions& options() const { return m_options; }

  // Variables held fixed (Dirichlet conditions): zero gradient, identity rows and columns in the Hessian,
  // identity in the HVP. A list of vertex indices fixes all D variables of each.
  void fix_vertices(const std::vector<std::uint32_t>& vertices);
  void fix_variables(const std::vector<std::uint32_t>& variables);
  void clear_fixed();
  const std::vector<std::uint8_t>& fixed_mask() const { return m_fixed_host; }

  double value(View<const T> x) override;
  double gradient(View<const T> x, View<T> g) override;
  // The gradient without the energy total: the pure gradient pass (what the benchmarks time).
  void gradient_only(View<const T> x, View<T> g);
  const CsrMatrix<T>& hessian(View<const T> x) override;
  bool projects_hessian() const override { return m_options.project_psd; }
  const CsrMatrix<T>& exact_hessian(View<const T> x) override;
  void hessian_diagonal(View<const T> x, View<T> d) override;
  void hvp(View<const T> x, View<const T> v, View<T> out) override;

  // Energy of each term at the last value() or gradient() call.
  const std::vector<double>& term_energies() const { return m_term_energies; }
  // The Hessian's matrix (pattern and the last assembled values); builds the pattern when needed.
  const CsrMatrix<T>& matrix();
  // Bytes held for patterns, maps and records.
  std::size_t memory_bytes() const;

 protected:
  int add_term_base(std::unique_ptr<ElementTermBase<T>> term);
  void set_data_base(int term, const void* host, std::size_t count, const std::type_info& type);
  void check_elements(const char* name, int arity, const std::vector<std::uint32_t>& elements) const;

 private:
  struct VertexGather;
  struct HessianLayout;

  void check_vector(View<const T> v, const char* what) const;
  TermPass<T> base_pass(View<const T> x, bool owned) const;
  void vector_pass(ElementPass which, View<const T> x, const T* direction, View<T> out, bool with_energy);
  double collect_energies();
  VertexGather& vertex_gather();
  HessianLayout& hessian_layout();
  void invalidate_layouts();

  std::size_t m_num_vertices;
  int m_dim;
  Device m_device;
  AssemblyOptions m_options;
  std::vector<std::unique_ptr<ElementTermBase<T>>> m_terms;
  std::vector<double> m_term_energies;
  Buffer<double> m_partials;  // [terms * kEnergyPartials]
  Buffer<T> m_records;
  Buffer<T> m_masked_direction;
  std::vector<std::uint8_t> m_fixed_host;
  Buffer<std::uint8_t> m_fixed;
  bool m_any_fixed = false;
  std::unique_ptr<VertexGather> m_vertex_gather;
  std::unique_ptr<HessianLayout> m_hessian_layout;
};

template <class T, int D>
class ElementProblem : public ElementProblemBase<T> {
 public:
  static_assert(D >= 1 && D <= 4, "element problems have 1 to 4 variables per vertex");
  ElementProblem(std::size_t num_vertices, Device device) : ElementProblemBase<T>(num_vertices, D, device) {}

  // Adds a term over `elements` ([count * K] vertex indices, element-major) with `energy` (see element_energy.h)
  // and per-element `data` (count entries, one shared entry, or none). Returns the term's index.
  template <int K, class Energy, class Data = NoElementData, bool kCuda = TG_ELEMENT_CUDA>
  int add_term(std::string name, std::vector<std::uint32_t> elements, const Energy& energy,
               const std::vector<Data>& data = {}) {
    static_assert(K >= 1 && K <= 8, "element arity must be 1..8");
    this->check_elements(name.c_str(), K, elements);
    return this->add_term_base(std::make_unique<ElementTerm<T, K, D, Energy, Data, kCuda>>(
        std::move(name), std::move(elements), energy, data, this->device()));
  }

  // Replaces a term's element data (same type and count rules as add_term); the layout is kept.
  template <class Data>
  void set_term_data(int term, const std::vector<Data>& data) {
    this->set_data_base(term, data.data(), data.size(), typeid(Data));
  }
};

}  // namespace tilegrad
