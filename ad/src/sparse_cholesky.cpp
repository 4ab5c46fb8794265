// SparseCholesky (sparse_cholesky.h): CHOLMOD's analysis once per pattern, its numeric factorisation of
// A + shift I per call, and solves; matrices and vectors on either device (CHOLMOD works on host copies).
#include "tilegrad/ad/sparse_cholesky.h"

#include <chrono>
#include <vector>

#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"

#if TILEGRAD_WITH_CHOLMOD
#include <cholmod.h>
#endif

namespace tilegrad {

#if TILEGRAD_WITH_CHOLMOD

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

template <class T>
struct SparseCholesky<T>::Impl {
  cholmod_common common;
  cholmod_factor* factor = nullptr;
  bool factored = false;
  // The pattern of the analysed matrix: a symmetric CSR matrix read as CSC (the same arrays).
  const void* pattern_offsets = nullptr;
  const void* pattern_columns = nullptr;
  std::size_t rows = 0, entries = 0;
  std::vector<int> p, i;
  std::vector<double> values, rhs;
  Device device = Device::Cpu;
  CholeskyStats stats;

  Impl() {
    cholmod_start(&common);
    common.print = 0;              // errors are reported through the return values, not printed
    common.error_handler = nullptr;
    // Supernodal LL^T whatever the size: it stops at the first non-positive pivot (a simplicial LDL^T would
    // factor an indefinite matrix, and Newton needs to know).
    common.supernodal = CHOLMOD_SUPERNODAL;
  }
  ~Impl() {
    if (factor) cholmod_free_factor(&factor, &common);
    cholmod_finish(&common);
  }

  cholmod_sparse matrix() {
    cholmod_sparse a{};
    a.nrow = a.ncol = rows;
    a.nzmax = entries;
    a.p = p.data();
    a.i = i.data();
    a.x = values.data();
    a.stype = 1;  // symmetric: the upper triangle is read
    a.itype = CHOLMOD_INT;
    a.xtype = CHOLMOD_REAL;
    a.dtype = CHOLMOD_DOUBLE;
    a.sorted = 1;
    a.packed = 1;
    return a;
  }
};

template <class T>
bool SparseCholesky<T>::factor(const CsrMatrix<T>& a, double shift) {
  Impl& m = *m_impl;
  TG_CHECK_ARG(a.rows == a.cols, "SparseCholesky: the matrix is not square (", a.rows, " x ", a.cols, ")");
  TG_CHECK_ARG(a.nnz() < (std::size_t(1) << 31) && a.rows < (std::size_t(1) << 31),
               "SparseCholesky: more than 2^31 rows or entries");
  const bool same_pattern = m.factor && m.pattern_offsets == a.row_offsets.data() &&
                            m.pattern_columns == a.columns.data() && m.rows == a.rows && m.entries == a.nnz();
  m.device = a.device();
  if (!same_pattern) {
    const auto t0 = std::chrono::steady_clock::now();
    if (m.factor) cholmod_free_factor(&m.factor, &m.common);
    m.factored = false;
    m.rows = a.rows;
    m.entries = a.nnz();
    const std::vector<std::uint32_t> offsets = a.row_offsets.to_vector(), columns = a.columns.to_vector();
    m.p.assign(offsets.begin(), offsets.end());
    m.i.assign(columns.begin(), columns.end());
    m.values.assign(m.entries, 0.0);
    cholmod_sparse s = m.matrix();
    m.factor = cholmod_analyze(&s, &m.common);
    TG_REQUIRE(m.factor != nullptr, InternalError, "SparseCholesky: CHOLMOD's analysis failed (status ",
               m.common.status, ")");
    m.pattern_offsets = a.row_offsets.data();
    m.pattern_columns = a.columns.data();
    ++m.stats.analyses;
    m.stats.analyze_seconds += seconds_since(t0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  if constexpr (std::is_same_v<T, double>) {
    memory::copy(m.values.data(), Device::Cpu, a.values.data(), a.device(), a.values.bytes());
  } else {
    const std::vector<T> v = a.values.to_vector();
    m.values.assign(v.begin(), v.end());
  }
  cholmod_sparse s = m.matrix();
  double beta[2] = {shift, 0.0};
  const int ok = cholmod_factorize_p(&s, beta, nullptr, 0, m.factor, &m.common);
  ++m.stats.factorizations;
  m.stats.factor_seconds += seconds_since(t0);
  m.factored = ok && m.common.status == CHOLMOD_OK && m.factor->minor == m.factor->n;
  TG_REQUIRE(m.factored || m.common.status == CHOLMOD_NOT_POSDEF, InternalError,
             "SparseCholesky: CHOLMOD's factorisation failed (status ", m.common.status, ")");
  if (m.factored) {
    m.stats.factor_entries = m.factor->is_super ? m.factor->xsize : m.factor->nzmax;
  }
  return m.factored;
}

template <class T>
void SparseCholesky<T>::solve(View<const T> b, View<T> x) {
  Impl& m = *m_impl;
  TG_CHECK_ARG(m.factored, "SparseCholesky::solve: no successful factorisation");
  check_view(b, m.rows, m.device, "SparseCholesky::solve: b");
  check_view(x, m.rows, m.device, "SparseCholesky::solve: x");
  const auto t0 = std::chrono::steady_clock::now();
  if constexpr (std::is_same_v<T, double>) {
    m.rhs.resize(m.rows);
    memory::copy(m.rhs.data(), Device::Cpu, b.data(), b.device, b.bytes());
  } else {
    const std::vector<T> v = to_vector(b);
    m.rhs.assign(v.begin(), v.end());
  }
  cholmod_dense rhs{};
  rhs.nrow = rhs.d = rhs.nzmax = m.rows;
  rhs.ncol = 1;
  rhs.x = m.rhs.data();
  rhs.xtype = CHOLMOD_REAL;
  rhs.dtype = CHOLMOD_DOUBLE;
  cholmod_dense* sol = cholmod_solve(CHOLMOD_A, m.factor, &rhs, &m.common);
  TG_REQUIRE(sol != nullptr, InternalError, "SparseCholesky: CHOLMOD's solve failed (status ", m.common.status, ")");
  const double* s = static_cast<const double*>(sol->x);
  if constexpr (std::is_same_v<T, double>) {
    memory::copy(x.data(), x.device, s, Device::Cpu, x.bytes());
  } else {
    const std::vector<T> v(s, s + m.rows);
    memory::copy(x.data(), x.device, v.data(), Device::Cpu, x.bytes());
  }
  cholmod_free_dense(&sol, &m.common);
  m.stats.solve_seconds += seconds_since(t0);
}

#else  // without CHOLMOD

template <class T>
struct SparseCholesky<T>::Impl {
  CholeskyStats stats;
};

template <class T>
bool SparseCholesky<T>::factor(const CsrMatrix<T>&, double) {
  throw Unsupported("SparseCholesky: this build has no CHOLMOD (install libsuitesparse-dev: scripts/setup, and "
                    "reconfigure)");
}
template <class T>
void SparseCholesky<T>::solve(View<const T>, View<T>) {
  throw Unsupported("SparseCholesky: this build has no CHOLMOD");
}

#endif

template <class T>
bool SparseCholesky<T>::available() {
#if TILEGRAD_WITH_CHOLMOD
  return true;
#else
  return false;
#endif
}
template <class T>
SparseCholesky<T>::SparseCholesky() : m_impl(std::make_unique<Impl>()) {}
template <class T>
SparseCholesky<T>::~SparseCholesky() = default;

template <class T>
const CholeskyStats& SparseCholesky<T>::stats() const {
  return m_impl->stats;
}

template class SparseCholesky<float>;
template class SparseCholesky<double>;

}  // namespace tilegrad
