// One term of an element-energy problem: elements of arity K and the energy evaluated on each, with its passes
// (value, gradient, Hessian, Hessian diagonal, HVP) on the CPU loops or, when this header is compiled by nvcc,
// on the CUDA kernels.
//
// A term's CUDA passes exist only where its energy was instantiated by nvcc: code that adds terms to a CUDA
// problem must be compiled as CUDA (a .cu file, or a .cpp with LANGUAGE CUDA). The template flag kCuda records
// which compiler saw the instantiation, so host-compiled and device-compiled instantiations are distinct types.
#pragma once
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "tilegrad/ad/element_cpu.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/error.h"

#if defined(__CUDACC__)
#include "tilegrad/ad/cuda/element_kernels.cuh"
#define TG_ELEMENT_CUDA 1
#else
#define TG_ELEMENT_CUDA 0
#endif

namespace tilegrad {

enum class ElementPass { Value, Gradient, Hessian, HessianDiagonal, Hvp };

template <class T>
class ElementTermBase {
 public:
  ElementTermBase(std::string name, int arity, int dim, std::vector<std::uint32_t> elements, Device device)
      : m_name(std::move(name)),
        m_arity(arity),
        m_dim(dim),
        m_device(device),
        m_host_elements(std::move(elements)),
        m_elements(Buffer<std::uint32_t>::from(m_host_elements, device)) {}
  virtual ~ElementTermBase() = default;
  ElementTermBase(const ElementTermBase&) = delete;
  ElementTermBase& operator=(const ElementTermBase&) = delete;

  const std::string& name() const { return m_name; }
  int arity() const { return m_arity; }
  Device device() const { return m_device; }
  std::size_t count() const { return m_host_elements.size() / static_cast<std::size_t>(m_arity); }
  int local_size() const { return m_arity * m_dim; }
  int packed_size() const { return local_size() * (local_size() + 1) / 2; }
  const std::vector<std::uint32_t>& host_elements() const { return m_host_elements; }

  // Runs one pass over all elements (see TermPass for what each pass reads and writes).
  virtual void run(ElementPass pass, const TermPass<T>& p) const = 0;
  // Replaces the element data; `type` must be the term's Data type, count its element count or 1 (shared).
  virtual void set_data(const void* host, std::size_t count, const std::type_info& type) = 0;

 protected:
  std::string m_name;
  int m_arity, m_dim;
  Device m_device;
  std::vector<std::uint32_t> m_host_elements;
  Buffer<std::uint32_t> m_elements;
};

template <class T, int K, int D, class Energy, class Data, bool kCuda>
class ElementTerm final : public ElementTermBase<T> {
  using Args = ElementArgs<T, K, D, Energy, Data>;

 public:
  ElementTerm(std::string name, std::vector<std::uint32_t> elements, const Energy& energy,
              const std::vector<Data>& data, Device device)
      : ElementTermBase<T>(std::move(name), K, D, std::move(elements), device), m_energy(energy) {
    TG_REQUIRE(device == Device::Cpu || kCuda, Unsupported, "term '", this->m_name,
               "': its energy was compiled without nvcc, so it has no CUDA passes; compile the code that adds "
               "terms to a CUDA problem as CUDA");
    set_data(data.empty() ? nullptr : data.data(), data.size(), typeid(Data));
  }

  void run(ElementPass pass, const TermPass<T>& p) const override {
    const Args a{m_energy, m_data.data(), m_data_stride, this->m_elements.data(), this->count(), p.x};
    if (this->m_device == Device::Cpu) {
      switch (pass) {
        case ElementPass::Value: return element_cpu::value(a, p);
        case ElementPass::Gradient: return element_cpu::gradient(a, p);
        case ElementPass::Hessian: return element_cpu::hessian(a, p);
        case ElementPass::HessianDiagonal: return element_cpu::hessian_diagonal(a, p);
        case ElementPass::Hvp: return element_cpu::hvp(a, p);
      }
    }
#if defined(__CUDACC__)
    if constexpr (kCuda) {
      switch (pass) {
        case ElementPass::Value: return element_cuda::value(a, p);
        case ElementPass::Gradient: return element_cuda::gradient(a, p);
        case ElementPass::Hessian: return element_cuda::hessian(a, p);
        case ElementPass::HessianDiagonal: return element_cuda::hessian_diagonal(a, p);
        case ElementPass::Hvp: return element_cuda::hvp(a, p);
      }
    }
#endif
    throw Unsupported(detail::concat("term '", this->m_name, "' has no CUDA passes in this build"));
  }

  void set_data(const void* host, std::size_t count, const std::type_info& type) override {
    TG_CHECK_ARG(type == typeid(Data), "term '", this->m_name, "': element data of the wrong type");
    const std::size_t elements = this->count();
    TG_CHECK_ARG(count == 0 || count == 1 || count == elements, "term '", this->m_name, "': ", count,
                 " element data entries for ", elements, " elements (expected ", elements, ", 1 shared, or none)");
    const Data fallback{};
    const Data* src = count == 0 ? &fallback : static_cast<const Data*>(host);
    const std::size_t n = count == 0 ? 1 : count;
    if (m_data.size() == n) {
      m_data.copy_from(View<const Data>(src, n, Device::Cpu));
    } else {
      m_data = Buffer<Data>::from(src, n, this->m_device);
    }
    m_data_stride = n == elements && n > 1 ? 1 : 0;
  }

 private:
  Energy m_energy;
  Buffer<Data> m_data;
  std::size_t m_data_stride = 0;
};

}  // namespace tilegrad
