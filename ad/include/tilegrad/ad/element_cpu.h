// CPU loops of the element passes (OpenMP over elements): the reference backend every term runs on the host.
#pragma once
#include <cstddef>

#include "tilegrad/ad/element_assembly.h"

namespace tilegrad::element_cpu {

template <class T>
inline void atomic_add(T* dst, T v) {
#pragma omp atomic
  *dst += v;
}

struct AtomicAdd {
  template <class T>
  void operator()(T* dst, T v) const {
    atomic_add(dst, v);
  }
};

// Below this many elements the loop runs on the calling thread: waking an OpenMP team costs more than the work.
constexpr std::size_t kParallelElements = 1024;

// Runs body(e) for every element and, when partials are wanted, sums what it returns per fixed partition
// range in element order (the same bits for any thread count).
template <class Body>
void for_each_element(std::size_t count, double* partials, Body body) {
  const int parts = kEnergyPartials;
#pragma omp parallel for schedule(dynamic, 4) if (count > kParallelElements)
  for (int p = 0; p < parts; ++p) {
    const std::size_t begin = energy_partition_begin(count, parts, p);
    const std::size_t end = energy_partition_begin(count, parts, p + 1);
    double s = 0.0;
    for (std::size_t e = begin; e < end; ++e) s += static_cast<double>(body(e));
    if (partials) partials[p] = s;
  }
}

template <class T, int K, int D, class Energy, class Data>
void value(const ElementArgs<T, K, D, Energy, Data>& a, const TermPass<T>& pass) {
  for_each_element(a.count, pass.energy_partials,
                   [&](std::size_t e) { return element_value(a.energy, a.variables(e), a.data_of(e)); });
}

// Shared by the passes whose element result is a vector (gradient, HVP, Hessian diagonal).
template <class T, int K, int D, class Energy, class Data, class Local>
void vector_pass(const ElementArgs<T, K, D, Energy, Data>& a, const TermPass<T>& pass, Local local) {
  for_each_element(a.count, pass.energy_partials, [&](std::size_t e) {
    T energy = T(0);
    const Vec<T, K * D> r = local(e, energy);
    if (pass.owned) {
      write_vector_record(pass.records, e, r);
    } else {
      scatter_vector<K, D>(r, a.elements + e * K, pass.out, AtomicAdd{});
    }
    return energy;
  });
}

template <class T, int K, int D, class Energy, class Data>
void gradient(const ElementArgs<T, K, D, Energy, Data>& a, const TermPass<T>& pass) {
  vector_pass(a, pass, [&](std::size_t e, T& energy) {
    const auto r = element_gradient(a.energy, a.variables(e), a.data_of(e));
    energy = r.value;
    return r.gradient;
  });
}

template <class T, int K, int D, class Energy, class Data>
void hvp(const ElementArgs<T, K, D, Energy, Data>& a, const TermPass<T>& pass) {
  vector_pass(a, pass, [&](std::size_t e, T&) {
    const Vec<T, K * D> v = gather_element<K, D>(pass.direction, a.elements + e * K);
    return element_hvp(a.energy, a.variables(e), v, a.data_of(e), pass.project, pass.min_eigenvalue);
  });
}

template <class T, int K, int D, class Energy, class Data>
void hessian_diagonal(const ElementArgs<T, K, D, Energy, Data>& a, const TermPass<T>& pass) {
  vector_pass(a, pass, [&](std::size_t e, T&) {
    const auto h = element_hessian(a.energy, a.variables(e), a.data_of(e), pass.project, pass.min_eigenvalue);
    return local_diagonal<K, D>(h, a.elements + e * K);
  });
}

template <class T, int K, int D, class Energy, class Data>
void hessian(const ElementArgs<T, K, D, Energy, Data>& a, const TermPass<T>& pass) {
  for_each_element(a.count, nullptr, [&](std::size_t e) {
    const auto h = element_hessian(a.energy, a.variables(e), a.data_of(e), pass.project, pass.min_eigenvalue);
    if (pass.owned) {
      write_hessian_record(pass.records, e, h);
    } else {
      scatter_hessian<K, D>(h, a.elements + e * K, pass.element_blocks + e * K * K, pass.block_row_offsets, pass.out,
                            AtomicAdd{});
    }
    return 0.0;
  });
}

}  // namespace tilegrad::element_cpu
