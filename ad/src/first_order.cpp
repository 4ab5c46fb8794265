// First-order minimisers: gradient descent with an adaptive initial step, and L-BFGS (two-loop recursion,
// curvature-checked updates, history dropped when the objective retracts its coordinates).
#include <cmath>
#include <deque>

#include "solver_common.h"

namespace tilegrad {

template <class T>
SolveResult gradient_descent(Objective<T>& f, View<T> x, const GradientDescentOptions& options) {
  const std::size_t n = f.size();
  const Device device = f.device();
  Buffer<T> g(n, device), p(n, device), trial(n, device);
  solver_detail::Progress<T> progress(options.stop, options.on_iteration);
  double energy = 0.0;
  if (solver_detail::start_solve(f, x, g.view(), progress, energy, "gradient_descent: x")) return progress.result();
  double step = options.initial_step;
  for (;;) {
    blas::scaled_copy(-1.0, g.cview(), p.view());
    const double slope = -blas::squared_norm(g.cview());
    const auto ls =
        solver_detail::armijo_backtracking<T>(f, x, p.cview(), energy, slope, step, options.line_search, trial.view());
    if (!ls.accepted) {
      progress.finish(false, "line search found no decrease");
      return progress.result();
    }
    step = 2.0 * ls.step;
    blas::copy(trial.cview(), x);
    f.accept(x);
    energy = f.gradient(x, g.view());
    if (progress.record(energy, g.cview(), ls.step, 0, ls.trials)) return progress.result();
  }
}

template <class T>
SolveResult lbfgs(Objective<T>& f, View<T> x, const LbfgsOptions& options) {
  TG_CHECK_ARG(options.history >= 1, "lbfgs: history must be >= 1, got ", options.history);
  const std::size_t n = f.size();
  const Device device = f.device();
  struct Pair {
    Buffer<T> s, y;
    double rho;
  };
  std::deque<Pair> history;
  std::vector<double> alphas;
  Buffer<T> g(n, device), g_old(n, device), x_old(n, device), p(n, device), trial(n, device);
  solver_detail::Progress<T> progress(options.stop, options.on_iteration);
  double energy = 0.0;
  if (solver_detail::start_solve(f, x, g.view(), progress, energy, "lbfgs: x")) return progress.result();
  for (;;) {
    // Two-loop recursion: p = -H_k g with H_0 = gamma I, gamma = s.y / y.y of the newest pair.
    blas::scaled_copy(-1.0, g.cview(), p.view());
    alphas.assign(history.size(), 0.0);
    for (std::size_t k = history.size(); k-- > 0;) {
      alphas[k] = history[k].rho * blas::dot(history[k].s.cview(), p.cview());
      blas::axpy(-alphas[k], history[k].y.cview(), p.view());
    }
    double step = 1.0;
    if (!history.empty()) {
      const Pair& last = history.back();
      blas::scaled_copy(1.0 / (last.rho * blas::squared_norm(last.y.cview())), p.cview(), p.view());
    } else {
      step = 1.0 / std::fmax(1.0, std::sqrt(blas::squared_norm(g.cview())));  // first step: unit length at most
    }
    for (std::size_t k = 0; k < history.size(); ++k) {
      const double beta = history[k].rho * blas::dot(history[k].y.cview(), p.cview());
      blas::axpy(alphas[k] - beta, history[k].s.cview(), p.view());
    }
    double slope = blas::dot(g.cview(), p.cview());
    if (!(slope < 0.0)) {  // a stale history: restart from steepest descent
      history.clear();
      blas::scaled_copy(-1.0, g.cview(), p.view());
      slope = -blas::squared_norm(g.cview());
      step = 1.0 / std::fmax(1.0, std::sqrt(-slope));
    }
    const auto ls =
        solver_detail::armijo_backtracking<T>(f, x, p.cview(), energy, slope, step, options.line_search, trial.view());
    if (!ls.accepted) {
      progress.finish(false, "line search found no decrease");
      return progress.result();
    }
    blas::copy(x, x_old.view());
    blas::copy(g.cview(), g_old.view());
    blas::copy(trial.cview(), x);
    const bool moved = f.accept(x);
    energy = f.gradient(x, g.view());
    if (moved) {
      history.clear();  // curvature pairs belong to the old coordinates
    } else {
      Pair pair{Buffer<T>(n, device), Buffer<T>(n, device), 0.0};
      blas::copy(x, pair.s.view());
      blas::axpy(-1.0, x_old.cview(), pair.s.view());
      blas::copy(g.cview(), pair.y.view());
      blas::axpy(-1.0, g_old.cview(), pair.y.view());
      const double sy = blas::dot(pair.s.cview(), pair.y.cview());
      // Keeps the implicit inverse Hessian positive definite (skips pairs without positive curvature).
      if (sy > 1e-12 * std::sqrt(blas::squared_norm(pair.s.cview()) * blas::squared_norm(pair.y.cview()))) {
        pair.rho = 1.0 / sy;
        if (static_cast<int>(history.size()) == options.history) history.pop_front();
        history.push_back(std::move(pair));
      }
    }
    if (progress.record(energy, g.cview(), ls.step, 0, ls.trials)) return progress.result();
  }
}

template SolveResult gradient_descent<float>(Objective<float>&, View<float>, const GradientDescentOptions&);
template SolveResult gradient_descent<double>(Objective<double>&, View<double>, const GradientDescentOptions&);
template SolveResult lbfgs<float>(Objective<float>&, View<float>, const LbfgsOptions&);
template SolveResult lbfgs<double>(Objective<double>&, View<double>, const LbfgsOptions&);

}  // namespace tilegrad
