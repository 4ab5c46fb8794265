// Internal: what the solvers share: the iteration bookkeeping (gradient norms, stop tests, the log) and the
// Armijo backtracking line search.
#pragma once
#include <chrono>
#include <cmath>

#include "tilegrad/ad/solvers.h"
#include "tilegrad/ad/vector_ops.h"

namespace tilegrad::solver_detail {

// The state of one solve: current energy and gradient, the log, and the stop decision.
template <class T>
class Progress {
 public:
  Progress(const StopCriteria& stop, const IterationCallback& callback) : m_stop(stop), m_callback(callback) {}

  // Records the state after an accepted step (or the start, step = 0); returns true when the solve must stop.
  bool record(double energy, View<const T> g, double step, int inner, int trials, bool direct = false,
              double shift = 0.0, bool exact = false) {
    IterationLog entry;
    entry.iteration = static_cast<int>(m_result.log.size());
    entry.energy = energy;
    entry.gradient_norm = std::sqrt(blas::squared_norm(g));
    entry.gradient_max = blas::max_abs(g);
    entry.step = step;
    entry.inner_iterations = inner;
    entry.line_search_trials = trials;
    entry.direct = direct;
    entry.exact = exact;
    entry.shift = shift;
    entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    const double previous = m_result.log.empty() ? energy : m_result.log.back().energy;
    if (m_result.log.empty()) m_initial_gradient = entry.gradient_norm;
    m_result.log.push_back(entry);
    m_result.iterations = entry.iteration;
    m_result.energy = energy;
    m_result.gradient_norm = entry.gradient_norm;
    if (m_callback) m_callback(entry);

    if (!std::isfinite(energy) || !std::isfinite(entry.gradient_norm))
      return finish(false, "non-finite energy or gradient");
    if (entry.gradient_max <= m_stop.gradient_tolerance) return finish(true, "gradient tolerance");
    if (m_stop.relative_gradient_tolerance > 0 &&
        entry.gradient_norm <= m_stop.relative_gradient_tolerance * m_initial_gradient)
      return finish(true, "relative gradient tolerance");
    if (entry.iteration > 0 && previous - energy <= m_stop.energy_tolerance * std::fmax(1.0, std::fabs(energy)))
      return finish(true, "energy decrease below tolerance");
    if (entry.iteration >= m_stop.max_iterations) return finish(false, "maximum iterations");
    return false;
  }

  bool finish(bool converged, const char* reason) {
    m_result.converged = converged;
    m_result.reason = reason;
    return true;
  }

  double initial_gradient() const { return m_initial_gradient; }
  double last_gradient() const { return m_result.gradient_norm; }
  SolveResult& result() { return m_result; }

 private:
  StopCriteria m_stop;
  const IterationCallback& m_callback;
  SolveResult m_result;
  double m_initial_gradient = 0;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

// Checks x, evaluates the starting point into g and records it. Returns true when the solve is already over.
template <class T>
bool start_solve(Objective<T>& f, View<T> x, View<T> g, Progress<T>& progress, double& energy, const char* who) {
  check_view(x, f.size(), f.device(), who);
  energy = f.gradient(x, g);
  return progress.record(energy, g, 0.0, 0, 0);
}

struct LineSearchResult {
  bool accepted = false;
  double step = 0;
  double energy = 0;
  int trials = 0;
};

// Backtracks from `step` along p (slope = g.p < 0) and leaves the accepted point in `trial`.
template <class T>
LineSearchResult armijo_backtracking(Objective<T>& f, View<const T> x, View<const T> p, double energy, double slope,
                                     double step, const LineSearchOptions& options, View<T> trial) {
  LineSearchResult r;
  for (r.trials = 1; r.trials <= options.max_trials; ++r.trials, step *= options.shrink) {
    blas::copy(x, trial);
    blas::axpy(step, p, trial);
    const double e = f.value(trial);
    if (std::isfinite(e) && e <= energy + options.armijo * step * slope) {
      r.accepted = true;
      r.step = step;
      r.energy = e;
      return r;
    }
  }
  r.trials = options.max_trials;
  return r;
}

}  // namespace tilegrad::solver_detail
