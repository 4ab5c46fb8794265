// `tilegrad mesh`: the mesh-energy applications (smooth, param, cloth, sphere) and their shared flags.
#include "cmd_mesh.h"

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/generate.h"

namespace tilegrad::cli {

void MeshSolveFlags::add_to(CLI::App& app, bool psd_by_default) {
  app.add_option("--device", device, "cpu, cuda or auto (cuda when available)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  app.add_option("--solver", solver, "newton, gd (gradient descent) or lbfgs")
      ->check(CLI::IsMember({"newton", "gd", "lbfgs"}));
  app.add_option("--accumulation", accumulation, "Hessian and gradient assembly: owned (deterministic) or atomic")
      ->check(CLI::IsMember({"owned", "atomic"}));
  app.add_option("--max-iterations", max_iterations, "Solver iterations (default: the application's)");
  app.add_option("--gradient-tolerance", gradient_tolerance, "Stop when max |g_i| is below this");
  app.add_option("--energy-tolerance", energy_tolerance, "Stop when the relative energy decrease is below this");
  app.add_flag("--matrix-free", matrix_free, "Newton: PCG on Hessian-vector products instead of the assembled matrix");
  app.add_option("--linear-solver", linear_solver,
                 "Newton's inner solve: cholesky (sparse direct, CHOLMOD), pcg, or auto (cholesky when the build has "
                 "it and the Hessian is assembled)")
      ->check(CLI::IsMember({"auto", "cholesky", "pcg"}));
  app.add_option("--preconditioner", preconditioner,
                 "--matrix-free PCG's preconditioner: lagged-cholesky (the factor of an earlier iteration's Hessian, "
                 "refreshed when PCG slows), jacobi (no matrix at all), or auto (lagged-cholesky when the build has "
                 "CHOLMOD)")
      ->check(CLI::IsMember({"auto", "lagged-cholesky", "jacobi"}));
  if (psd_by_default) app.add_flag("--no-psd", no_psd, "Do not project element Hessians to positive semi-definite");
  app.add_flag("--quiet", quiet, "No per-iteration log");
}

mesh::SolveSettings MeshSolveFlags::settings(mesh::SolveSettings s) const {
  s.device = device == "auto" ? default_device() : parse_device(device);
  require_device(s.device);
  s.solver = mesh::parse_solver(solver);
  s.assembly.accumulation = parse_accumulation(accumulation);
  if (no_psd) s.assembly.project_psd = false;
  if (max_iterations >= 0) s.stop.max_iterations = max_iterations;
  if (gradient_tolerance >= 0) s.stop.gradient_tolerance = gradient_tolerance;
  if (energy_tolerance >= 0) s.stop.energy_tolerance = energy_tolerance;
  s.matrix_free = matrix_free;
  s.linear_solver = linear_solver == "cholesky" ? NewtonLinearSolver::Cholesky
                    : linear_solver == "pcg"    ? NewtonLinearSolver::Pcg
                                                : NewtonLinearSolver::Auto;
  s.preconditioner = preconditioner == "jacobi"            ? MatrixFreePreconditioner::Jacobi
                     : preconditioner == "lagged-cholesky" ? MatrixFreePreconditioner::LaggedCholesky
                                                           : MatrixFreePreconditioner::Auto;
  if (!quiet)
    s.on_iteration = [](const IterationLog& log) { std::printf("%s\n", mesh::format_iteration(log).c_str()); };
  return s;
}

void MeshInputFlags::add_to(CLI::App& app, const std::string& generators) {
  app.add_option("--input,-i", input, "Mesh file (.obj, .off, .ply)");
  app.add_option("--generate", generate, "Generated mesh instead of a file: " + generators);
  app.add_option("--resolution", resolution, "Generated grid/patch: cells per side")->check(checks::range(1, 4096));
  app.add_option("--subdivisions", subdivisions, "Generated sphere: icosphere subdivisions")->check(checks::range(0, 9));
  app.add_option("--noise", noise, "Generated mesh: random displacement along the normals (fraction of the size)");
  app.add_option("--seed", seed, "Generated mesh: noise seed");
}

io::TriangleMesh MeshInputFlags::load() const {
  TG_CHECK_ARG(input.empty() != generate.empty(), "give exactly one of --input FILE and --generate NAME");
  io::TriangleMesh m;
  if (!input.empty()) {
    m = io::read_mesh(input);
  } else if (generate == "sphere") {
    m = mesh::icosphere(subdivisions);
  } else if (generate == "grid") {
    m = mesh::grid(resolution, resolution);
  } else if (generate == "developable") {
    m = mesh::developable_patch(resolution, resolution);
  } else {
    throw InvalidArgument("unknown generated mesh '" + generate + "' (expected sphere, grid or developable)");
  }
  if (noise > 0.0) mesh::add_normal_noise(m, noise, seed);
  std::printf("mesh: %zu vertices, %zu triangles%s%s\n", m.vertex_count(), m.triangle_count(),
              input.empty() ? " (generated " : " from ", input.empty() ? (generate + ")").c_str() : input.c_str());
  return m;
}

void write_mesh_file(const std::string& path, const io::TriangleMesh& mesh) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  if (p.extension() == ".ply") {
    io::write_ply(path, mesh);
  } else {
    TG_CHECK_ARG(p.extension() == ".obj", "output '", path, "': expected a .obj or .ply file name");
    io::write_obj(path, mesh);
  }
  std::printf("wrote %s\n", path.c_str());
}

namespace {

void add_mesh_command(CLI::App& app) {
  auto* mesh = app.add_subcommand("mesh", "Mesh energies on the element-energy layer: smoothing, parameterization, "
                                          "cloth, spherical embedding");
  mesh->require_subcommand(1);
  add_mesh_smooth(*mesh);
  add_mesh_parameterize(*mesh);
  add_mesh_cloth(*mesh);
  add_mesh_sphere(*mesh);
}

}  // namespace

TG_REGISTER_COMMAND(mesh, add_mesh_command);

}  // namespace tilegrad::cli
