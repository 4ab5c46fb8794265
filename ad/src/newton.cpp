// Newton's method: H p = -g by a sparse Cholesky factorisation (symbolic part kept on the objective) or by PCG
// (assembled Hessian or matrix-free HVP), a descent safeguard, and Armijo backtracking that rejects
// inadmissible (+inf) trial points.
#include <algorithm>
#include <cmath>

#include "solver_common.h"
#include "tilegrad/ad/sparse_cholesky.h"
#include "tilegrad/ad/sparse_matrix.h"

namespace tilegrad {

namespace {

// Factors a + rel * scale * I with rel = start, 100 start, ... up to max_rel; returns the relative shift that
// factored, or a negative number.
template <class T>
double factor_shifted(SparseCholesky<T>& chol, const CsrMatrix<T>& a, double scale, double start, double max_rel) {
  for (double rel = start; rel <= max_rel; rel = rel == 0.0 ? 1e-12 : rel * 100.0)
    if (chol.factor(a, rel * scale)) return rel;
  return -1.0;
}

}  // namespace

template <class T>
SolveResult newton(Objective<T>& f, View<T> x, const NewtonOptions& options) {
  const std::size_t n = f.size();
  const Device device = f.device();
  const bool have_cholesky = SparseCholesky<T>::available();
  TG_CHECK_ARG(!(options.matrix_free && options.linear_solver == NewtonLinearSolver::Cholesky),
               "newton: the direct solver needs the assembled Hessian (matrix_free is set)");
  TG_CHECK_ARG(options.linear_solver != NewtonLinearSolver::Cholesky || have_cholesky,
               "newton: the direct solver needs CHOLMOD, which this build does not have (scripts/setup installs "
               "libsuitesparse-dev)");
  TG_CHECK_ARG(options.matrix_free_preconditioner != MatrixFreePreconditioner::LaggedCholesky || have_cholesky,
               "newton: the lagged Cholesky preconditioner needs CHOLMOD, which this build does not have");
  const bool direct = !options.matrix_free && options.linear_solver != NewtonLinearSolver::Pcg && have_cholesky;
  const bool lagged = options.matrix_free && options.matrix_free_preconditioner != MatrixFreePreconditioner::Jacobi &&
                      have_cholesky;
  if ((direct || lagged) && !f.cholesky_cache) f.cholesky_cache = std::make_shared<SparseCholesky<T>>();
  Buffer<T> g(n, device), p(n, device), b(n, device), diag(n, device), trial(n, device);
  solver_detail::Progress<T> progress(options.stop, options.on_iteration);
  double energy = 0.0;
  if (solver_detail::start_solve(f, x, g.view(), progress, energy, "newton: x")) return progress.result();
  double forcing = 0.5, last_step = 1.0;
  // Exact steps: the relative shift the next attempt starts from (100x below the last one that factored).
  double exact_start = options.cholesky_shift;
  bool lagged_ready = false;  // matrix-free: the cached factor preconditions PCG
  int last_inner = 0;

  for (;;) {
    blas::scaled_copy(-1.0, g.cview(), b.view());
    int inner = 0;
    double shift = 0.0;
    bool solved = false, exact = false;
    if (direct && options.exact_near_minimum && last_step == 1.0 && progress.result().iterations > 0 &&
        f.projects_hessian()) {
      // After a full step, the exact Hessian's step where it is positive definite (see NewtonOptions), shifted
      // relative to its rms diagonal.
      const CsrMatrix<T>& he = f.exact_hessian(x);
      csr_diagonal(he, diag.view());
      const double rms = std::sqrt(blas::squared_norm(diag.cview()) / static_cast<double>(n));
      const double rel = factor_shifted(*f.cholesky_cache, he, rms, exact_start, options.exact_max_shift);
      if (rel >= 0.0) {
        f.cholesky_cache->solve(b.cview(), p.view());
        shift = rel;
        solved = exact = true;
        exact_start = std::max(options.cholesky_shift, rel / 100.0);
      }
    }
    const CsrMatrix<T>* h = nullptr;
    if (!solved) {
      if (options.matrix_free) {
        f.hessian_diagonal(x, diag.view());
      } else {
        h = &f.hessian(x);
        csr_diagonal(*h, diag.view());
      }
    }
    if (direct && !solved) {
      // H + shift I, the shift relative to the largest diagonal entry.
      const double rel = factor_shifted(*f.cholesky_cache, *h, blas::max_abs(diag.cview()), options.cholesky_shift,
                                        options.cholesky_max_shift);
      if (rel >= 0.0) {
        f.cholesky_cache->solve(b.cview(), p.view());
        shift = rel;
        solved = true;
      }
    }
    if (!solved) {
      PcgOptions pcg_options = options.pcg;
      if (options.adaptive_tolerance && progress.initial_gradient() > 0) {
        // A step that needed backtracking says the inexact direction was poor: solve the next one 10x tighter.
        forcing = last_step < 1.0 ? 0.1 * forcing
                                  : std::min(0.5, std::sqrt(progress.last_gradient() / progress.initial_gradient()));
        forcing = std::max(forcing, options.pcg.relative_tolerance);
        pcg_options.relative_tolerance = forcing;
      }
      std::function<void(View<const T>, View<T>)> apply, precondition;
      if (options.matrix_free) {
        apply = [&](View<const T> v, View<T> out) { f.hvp(x, v, out); };
      } else {
        apply = [&](View<const T> v, View<T> out) { csr_multiply(*h, v, out); };
      }
      if (lagged && (!lagged_ready || last_inner > options.lagged_refactor_iterations)) {
        // (Re)factor the Hessian of this iteration as the preconditioner of this and later solves.
        const CsrMatrix<T>& hm = f.hessian(x);
        Buffer<T> hd(n, device);
        csr_diagonal(hm, hd.view());
        lagged_ready = factor_shifted(*f.cholesky_cache, hm, blas::max_abs(hd.cview()), options.cholesky_shift,
                                      options.cholesky_max_shift) >= 0.0;
      }
      if (lagged && lagged_ready) {
        precondition = [&](View<const T> r, View<T> z) { f.cholesky_cache->solve(r, z); };
      } else {
        // Jacobi; guards zero or negative diagonal entries (an unprojected non-convex Hessian) at a small
        // fraction of the largest.
        blas::safe_reciprocal(diag.cview(), std::max(1e-12 * blas::max_abs(diag.cview()), 1e-300), diag.view());
        precondition = [&](View<const T> r, View<T> z) { blas::multiply(diag.cview(), r, z); };
      }
      inner = pcg<T>(apply, precondition, b.cview(), p.view(), pcg_options).iterations;
      last_inner = inner;
    }

    double slope = blas::dot(g.cview(), p.cview());
    if (!(slope < 0.0)) {  // not a descent direction: fall back to steepest descent
      blas::copy(b.cview(), p.view());
      slope = blas::dot(g.cview(), p.cview());
    }
    const auto ls = solver_detail::armijo_backtracking<T>(f, x, p.cview(), energy, slope, 1.0, options.line_search,
                                                         trial.view());
    if (!ls.accepted) {
      progress.finish(false, "line search found no decrease");
      return progress.result();
    }
    last_step = ls.step;
    blas::copy(trial.cview(), x);
    f.accept(x);
    energy = f.gradient(x, g.view());
    if (progress.record(energy, g.cview(), ls.step, inner, ls.trials, solved, shift, exact)) return progress.result();
  }
}

template SolveResult newton<float>(Objective<float>&, View<float>, const NewtonOptions&);
template SolveResult newton<double>(Objective<double>&, View<double>, const NewtonOptions&);

const char* to_string(NewtonLinearSolver s) {
  switch (s) {
    case NewtonLinearSolver::Auto: return "auto";
    case NewtonLinearSolver::Cholesky: return "cholesky";
    case NewtonLinearSolver::Pcg: return "pcg";
  }
  return "?";
}

}  // namespace tilegrad
