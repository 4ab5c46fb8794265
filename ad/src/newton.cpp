// Newton's method: PCG on H p = -g (assembled Hessian or matrix-free HVP, Jacobi preconditioner), a descent
// safeguard, and Armijo backtracking that rejects inadmissible (+inf) trial points.
#include <algorithm>
#include <cmath>

#include "solver_common.h"
#include "tilegrad/ad/sparse_matrix.h"

namespace tilegrad {

template <class T>
SolveResult newton(Objective<T>& f, View<T> x, const NewtonOptions& options) {
  const std::size_t n = f.size();
  const Device device = f.device();
  Buffer<T> g(n, device), p(n, device), b(n, device), diag(n, device), trial(n, device);
  solver_detail::Progress<T> progress(options.stop, options.on_iteration);
  double energy = 0.0;
  if (solver_detail::start_solve(f, x, g.view(), progress, energy, "newton: x")) return progress.result();
  double forcing = 0.5, last_step = 1.0;

  for (;;) {
    // Right-hand side and preconditioner.
    blas::scaled_copy(-1.0, g.cview(), b.view());
    const CsrMatrix<T>* h = nullptr;
    if (options.matrix_free) {
      f.hessian_diagonal(x, diag.view());
    } else {
      h = &f.hessian(x);
      csr_diagonal(*h, diag.view());
    }
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
    const PcgResult solve = pcg<T>(apply, diag.cview(), b.cview(), p.view(), pcg_options);

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
    if (progress.record(energy, g.cview(), ls.step, solve.iterations, ls.trials)) return progress.result();
  }
}

template SolveResult newton<float>(Objective<float>&, View<float>, const NewtonOptions&);
template SolveResult newton<double>(Objective<double>&, View<double>, const NewtonOptions&);

}  // namespace tilegrad
