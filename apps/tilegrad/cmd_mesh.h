// Shared pieces of `tilegrad mesh <app>`: solver flags, mesh input (a file or a generated mesh), output, and the
// adders of the four applications' subcommands.
#pragma once
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "cli_checks.h"
#include "tilegrad/io/mesh.h"
#include "tilegrad/mesh/solve_settings.h"

namespace tilegrad::cli {

// Flags every mesh application takes; `settings()` turns them into the library's SolveSettings.
struct MeshSolveFlags {
  std::string device = "auto";
  std::string solver = "newton";
  std::string accumulation = "owned";
  int max_iterations = -1;  // < 0: the application's default
  double gradient_tolerance = -1, energy_tolerance = -1;
  bool matrix_free = false;
  std::string linear_solver = "auto";
  std::string preconditioner = "auto";
  bool no_psd = false;
  bool quiet = false;

  void add_to(CLI::App& app, bool psd_by_default);
  mesh::SolveSettings settings(mesh::SolveSettings defaults) const;
};

// --input FILE, or --generate NAME with --resolution / --subdivisions / --noise.
struct MeshInputFlags {
  std::string input;
  std::string generate;
  int resolution = 32;
  int subdivisions = 4;
  double noise = 0.0;
  std::uint64_t seed = 1;

  void add_to(CLI::App& app, const std::string& generators);
  io::TriangleMesh load() const;
};

// Writes OBJ or PLY by extension and reports it.
void write_mesh_file(const std::string& path, const io::TriangleMesh& mesh);

void add_mesh_smooth(CLI::App& mesh);
void add_mesh_parameterize(CLI::App& mesh);
void add_mesh_cloth(CLI::App& mesh);
void add_mesh_sphere(CLI::App& mesh);

}  // namespace tilegrad::cli
