// Solver selection of the mesh applications (solve_settings.h).
#include "tilegrad/mesh/solve_settings.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "tilegrad/core/error.h"

namespace tilegrad::mesh {

SolverKind parse_solver(const std::string& name) {
  std::string s = name;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "newton") return SolverKind::Newton;
  if (s == "gd" || s == "gradient-descent" || s == "gradient_descent") return SolverKind::GradientDescent;
  if (s == "lbfgs" || s == "l-bfgs") return SolverKind::Lbfgs;
  throw InvalidArgument("unknown solver '" + name + "' (expected newton, gd or lbfgs)");
}

const char* to_string(SolverKind kind) {
  switch (kind) {
    case SolverKind::Newton: return "newton";
    case SolverKind::GradientDescent: return "gd";
    case SolverKind::Lbfgs: return "lbfgs";
  }
  return "?";
}

SolveSettings projected_newton(int max_iterations, double energy_tolerance, double gradient_tolerance) {
  SolveSettings s;
  s.assembly.project_psd = true;
  s.stop.max_iterations = max_iterations;
  s.stop.energy_tolerance = energy_tolerance;
  s.stop.gradient_tolerance = gradient_tolerance;
  return s;
}

template <class T>
SolveResult run_solver(Objective<T>& f, View<T> x, const SolveSettings& settings) {
  switch (settings.solver) {
    case SolverKind::GradientDescent: {
      GradientDescentOptions o;
      o.stop = settings.stop;
      o.on_iteration = settings.on_iteration;
      return gradient_descent(f, x, o);
    }
    case SolverKind::Lbfgs: {
      LbfgsOptions o;
      o.stop = settings.stop;
      o.on_iteration = settings.on_iteration;
      return lbfgs(f, x, o);
    }
    case SolverKind::Newton: break;
  }
  NewtonOptions o;
  o.stop = settings.stop;
  o.pcg = settings.pcg;
  o.matrix_free = settings.matrix_free;
  o.adaptive_tolerance = settings.adaptive_tolerance;
  o.linear_solver = settings.linear_solver;
  o.matrix_free_preconditioner = settings.preconditioner;
  o.on_iteration = settings.on_iteration;
  return newton(f, x, o);
}

std::string format_iteration(const IterationLog& log) {
  char inner[48];
  if (log.direct) {
    std::snprintf(inner, sizeof inner, "cholesky%s (shift %.0e)", log.exact ? " exact" : "", log.shift);
  } else {
    std::snprintf(inner, sizeof inner, "pcg %d", log.inner_iterations);
  }
  char line[200];
  std::snprintf(line, sizeof line, "  iter %4d  energy %.10g  |g| %.3e  step %.3g  %s  (%.2f s)", log.iteration,
                log.energy, log.gradient_norm, log.step, log.iteration == 0 ? "-" : inner, log.seconds);
  return line;
}

template SolveResult run_solver<float>(Objective<float>&, View<float>, const SolveSettings&);
template SolveResult run_solver<double>(Objective<double>&, View<double>, const SolveSettings&);

}  // namespace tilegrad::mesh
