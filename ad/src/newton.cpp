// Newton's method: H p = -g by a sparse Cholesky factorisation (symbolic part kept on the objective) or by PCG
// (assembled Hessian or matrix-free HVP), a descent safeguard, and Armijo backtracking that rejects
// inadmissible (+inf) trial points.
#include <algorithm>
#include <cmath>

#include "solver_common.h"
#include "tilegrad/ad/sparse_cholesky.h"
#include "tilegrad/ad/sparse_matrix.h"

namespace tilegrad {

template <class T>
SolveResult newton(Objective<T>& f, View<T> x, const NewtonOptions& options) {
  const std::size_t n = f.size();
  const Device device = f.device();
  TG_CHECK_ARG(!(options.matrix_free && options.linear_solver == NewtonLinearSolver::Cholesky),
               "newton: the direct solver needs the assembled Hessian (matrix_free is set)");
  TG_CHECK_ARG(options.linear_solver != NewtonLinearSolver::Cholesky || SparseCholesky<T>::available(),
               "newton: the direct solver needs CHOLMOD, which this build does not have (scripts/setup installs "
               "libsuitesparse-dev)");
  const bool direct = !options.matrix_free && options.linear_solver != NewtonLinearSolver::Pcg &&
                      SparseCholesky<T>::available();
  if (direct && !f.cholesky_cache) f.cholesky_cache = std::make_shared<SparseCholesky<T>>();
  Buffer<T> g(n, device), p(n, device), b(n, device), diag(n, device), trial(n, device);
  solver_detail::Progress<T> progress(options.stop, options.on_iteration);
  double energy = 0.0;
  if (solver_detail::start_solve(f, x, g.view(), progress, energy, "newton: x")) return progress.result();
  double forcing = 0.5, last_step = 1.0;
  // Exact steps: the relative shift the next attempt starts from (100x below the last one that factored).
  double exact_start = options.cholesky_shift;

  for (;;) {
    // Right-hand side and preconditioner.
    blas::scaled_copy(-1.0, g.cview(), b.view());
    int inner = 0;
    double shift = 0.0;
    bool solved = false, exact = false;
    if (direct && options.exact_near_minimum && last_step == 1.0 && progress.result().iterations > 0 &&
        f.projects_hessian()) {
      // After a full step, the exact Hessian's step where it is positive definite (see NewtonOptions).
      const CsrMatrix<T>& he = f.exact_hessian(x);
      csr_diagonal(he, diag.view());
      const double scale = std::sqrt(blas::squared_norm(diag.cview()) / static_cast<double>(n));  // rms
      for (double rel = exact_start; rel <= options.exact_max_shift && !solved; rel *= 100.0) {
        if (f.cholesky_cache->factor(he, rel * scale)) {
          f.cholesky_cache->solve(b.cview(), p.view());
          shift = rel;
          solved = exact = true;
          exact_start = std::max(options.cholesky_shift, rel / 100.0);
        }
        if (rel == 0.0) rel = 1e-12;
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
      // H + shift I with a shift relative to the largest diagonal entry, 100x larger after each failure.
      const double scale = blas::max_abs(diag.cview());
      for (double rel = options.cholesky_shift; rel <= options.cholesky_max_shift; rel *= 100.0) {
        if (f.cholesky_cache->factor(*h, rel * scale)) {
          f.cholesky_cache->solve(b.cview(), p.view());
          shift = rel;
          solved = true;
          break;
        }
        if (rel == 0.0) rel = 1e-12;  // a zero start grows from a small shift
      }
    }
    if (!solved) {
      // Guards zero or negative diagonal entries (an unprojected non-convex Hessian) at a small fraction of the largest.
      blas::safe_reciprocal(diag.cview(), std::max(1e-12 * blas::max_abs(diag.cview()), 1e-300), diag.view());
      PcgOptions pcg_options = options.pcg;
      if (options.adaptive_tolerance && progress.initial_gradient() > 0) {
        // A step that needed backtracking says the inexact direction was poor: solve the next one 10x tighter.
        forcing = last_step < 1.0 ? 0.1 * forcing
                                  : std::min(0.5, std::sqrt(progress.last_gradient() / progress.initial_gradient()));
        forcing = std::max(forcing, options.pcg.relative_tolerance);
        pcg_options.relative_tolerance = forcing;
      }
      std::function<void(View<const T>, View<T>)> apply;
      if (options.matrix_free) {
        apply = [&](View<const T> v, View<T> out) { f.hvp(x, v, out); };
      } else {
        apply = [&](View<const T> v, View<T> out) { csr_multiply(*h, v, out); };
      }
      inner = pcg<T>(apply, diag.cview(), b.cview(), p.view(), pcg_options).iterations;
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

const char* to_string(NewtonLinearSolver s) {
  switch (s) {
    case NewtonLinearSolver::Auto: return "auto";
    case NewtonLinearSolver::Cholesky: return "cholesky";
    case NewtonLinearSolver::Pcg: return "pcg";
  }
  return "?";
}

template SolveResult newton<float>(Objective<float>&, View<float>, const NewtonOptions&);
template SolveResult newton<double>(Objective<double>&, View<double>, const NewtonOptions&);

}  // namespace tilegrad
