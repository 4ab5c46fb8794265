// Minimisers of an Objective on its device: Newton (Armijo backtracking; the inner solve by a sparse
// Cholesky factorisation of the assembled Hessian, or by PCG on it or matrix-free through the HVP), gradient
// descent and L-BFGS; each with stopping criteria and a per-iteration log.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tilegrad/ad/objective.h"

namespace tilegrad {

struct StopCriteria {
  int max_iterations = 100;
  double gradient_tolerance = 1e-8;           // max |g_i| <= this
  double relative_gradient_tolerance = 0.0;   // |g| <= this |g_0| (2-norms); 0 = off
  double energy_tolerance = 1e-12;            // E_prev - E <= this max(1, |E|)
};

// Armijo backtracking: accept x + a p when E(x + a p) <= E(x) + c1 a g.p and it is finite; a +inf energy (an
// inverted element) is an ordinary rejection, so steps never leave the admissible set.
struct LineSearchOptions {
  double armijo = 1e-4;
  double shrink = 0.5;
  int max_trials = 60;
};

struct IterationLog {
  int iteration = 0;
  double energy = 0;
  double gradient_norm = 0;  // 2-norm
  double gradient_max = 0;   // max |g_i|
  double step = 0;           // accepted line-search step a (0 at iteration 0)
  int inner_iterations = 0;  // PCG iterations of this Newton step (0 with the direct solver)
  bool direct = false;       // Newton step solved by the sparse Cholesky factorisation
  bool exact = false;        // ... of the exact Hessian (not projected)
  double shift = 0;          // ... with H + shift s I: the relative shift that factored (s: max |H_ii|, or the
                             // rms diagonal for the exact Hessian)
  int line_search_trials = 0;
  double seconds = 0;        // since the solve started
};

struct SolveResult {
  bool converged = false;
  std::string reason;  // which criterion stopped the solve
  int iterations = 0;
  double energy = 0;
  double gradient_norm = 0;
  std::vector<IterationLog> log;
};

using IterationCallback = std::function<void(const IterationLog&)>;

struct PcgOptions {
  int max_iterations = 1000;
  double relative_tolerance = 1e-8;  // |r| <= this |b|
};

// How Newton solves H p = -g.
enum class NewtonLinearSolver {
  Auto,      // Cholesky when this build has it (SparseCholesky::available()) and the Hessian is assembled, else Pcg
  Cholesky,  // sparse Cholesky of the assembled Hessian (CHOLMOD), symbolic factorisation reused
  Pcg,       // preconditioned conjugate gradients, on the assembled Hessian or matrix-free
};
const char* to_string(NewtonLinearSolver s);

struct PcgResult {
  int iterations = 0;
  double relative_residual = 0;
  bool converged = false;
  bool negative_curvature = false;  // stopped at a direction with p.Ap <= 0
};

// Solves A x = b from x = 0 with the preconditioner diag(inverse_diagonal). `apply(v, out)` computes out = A v.
template <class T>
PcgResult pcg(const std::function<void(View<const T>, View<T>)>& apply, View<const T> inverse_diagonal,
              View<const T> b, View<T> x, const PcgOptions& options);
// The same with any symmetric positive definite preconditioner: `precondition(r, z)` computes z = M^-1 r.
template <class T>
PcgResult pcg(const std::function<void(View<const T>, View<T>)>& apply,
              const std::function<void(View<const T>, View<T>)>& precondition, View<const T> b, View<T> x,
              const PcgOptions& options);

// What preconditions matrix-free PCG (NewtonOptions::matrix_free).
enum class MatrixFreePreconditioner {
  Auto,            // LaggedCholesky when this build has CHOLMOD, else Jacobi
  Jacobi,          // the Hessian's diagonal (hessian_diagonal): no matrix at all
  LaggedCholesky,  // the Cholesky factor of the Hessian assembled at an earlier iteration (see NewtonOptions)
};

struct NewtonOptions {
  StopCriteria stop;
  LineSearchOptions line_search;
  PcgOptions pcg;
  // When adaptive, the PCG tolerance of step k is min(0.5, sqrt(|g_k| / |g_0|)) (Eisenstat-Walker: loose far from
  // the minimum, tight near it), 10x tighter than the last one after a step that needed backtracking, and never
  // below pcg.relative_tolerance.
  bool adaptive_tolerance = true;
  bool matrix_free = false;  // PCG on the HVP and the Hessian diagonal instead of the assembled matrix
  NewtonLinearSolver linear_solver = NewtonLinearSolver::Auto;
  // Direct solver: H + shift I is factored with shift = cholesky_shift x max |H_ii| (a positive semi-definite
  // Hessian with null directions, e.g. a layout's rigid motions, then factors; the step changes by that
  // relative amount), and a failed factorisation (not positive definite) is retried with a 100x larger shift,
  // up to cholesky_max_shift; beyond it the step falls back to PCG.
  double cholesky_shift = 1e-10;
  double cholesky_max_shift = 1e-2;
  // Direct solver on an objective that projects its Hessian (Objective::projects_hessian): after a full step
  // (line-search step 1), first try the exact Hessian; where it factors (positive definite, near a minimum)
  // its Newton step is taken, else the projected one. Projected steps alone creep near a minimum of a
  // non-convex energy (the projection discards curvature the exact step needs).
  bool exact_near_minimum = true;
  // The exact Hessian is shifted by at most this times its rms diagonal (a Levenberg-Marquardt step, starting
  // 100x below the last shift that worked) before the projected one is used.
  double exact_max_shift = 1e-2;
  // Matrix-free PCG (the operator is the HVP at every iteration) preconditioned by the Cholesky factor of the
  // Hessian assembled and factored at an earlier iteration, refactored when PCG needed more than
  // lagged_refactor_iterations: near-exact preconditioning while the Hessian changes slowly, for the price of
  // the matrix and its factor in memory. Jacobi keeps the path free of any matrix.
  MatrixFreePreconditioner matrix_free_preconditioner = MatrixFreePreconditioner::Auto;
  int lagged_refactor_iterations = 20;
  IterationCallback on_iteration;
};

struct GradientDescentOptions {
  StopCriteria stop;
  LineSearchOptions line_search;
  double initial_step = 1.0;  // first trial step; later trials start at twice the last accepted step
  IterationCallback on_iteration;
};

struct LbfgsOptions {
  StopCriteria stop;
  LineSearchOptions line_search;
  int history = 8;
  IterationCallback on_iteration;
};

// Each minimises `f` from x in place; the log's first entry is the start (iteration 0).
template <class T>
SolveResult newton(Objective<T>& f, View<T> x, const NewtonOptions& options = {});
template <class T>
SolveResult gradient_descent(Objective<T>& f, View<T> x, const GradientDescentOptions& options = {});
template <class T>
SolveResult lbfgs(Objective<T>& f, View<T> x, const LbfgsOptions& options = {});

}  // namespace tilegrad
