// How an application solves its problem: device, minimiser, stopping criteria and assembly options, shared by
// smoothing, parameterization, cloth and spherical embedding (and their CLI flags).
#pragma once
#include <string>

#include "tilegrad/ad/element_problem.h"
#include "tilegrad/ad/solvers.h"

namespace tilegrad::mesh {

enum class SolverKind { Newton, GradientDescent, Lbfgs };

// Accepts newton, gd (gradient-descent), lbfgs (l-bfgs).
SolverKind parse_solver(const std::string& name);
const char* to_string(SolverKind kind);

struct SolveSettings {
  Device device = Device::Cpu;
  SolverKind solver = SolverKind::Newton;
  StopCriteria stop;
  AssemblyOptions assembly;  // accumulation strategy and per-element PSD projection
  bool matrix_free = false;  // Newton: PCG on Hessian-vector products
  NewtonLinearSolver linear_solver = NewtonLinearSolver::Auto;  // Newton: Cholesky when available, else PCG
  MatrixFreePreconditioner preconditioner = MatrixFreePreconditioner::Auto;  // matrix-free Newton's PCG
  PcgOptions pcg;
  bool adaptive_tolerance = true;  // Newton: loose PCG far from the minimum (see NewtonOptions)
  IterationCallback on_iteration;
};

// Newton on per-element PSD-projected Hessians: the default of the applications with non-convex energies.
SolveSettings projected_newton(int max_iterations, double energy_tolerance, double gradient_tolerance);

template <class T>
SolveResult run_solver(Objective<T>& f, View<T> x, const SolveSettings& settings);

// One line per iteration for logs: iteration, energy, gradient norm, step, PCG iterations.
std::string format_iteration(const IterationLog& log);

}  // namespace tilegrad::mesh
