// `tilegrad profile mesh`: energy, gradient, Hessian assembly (Atomic vs Owned) and HVP times of the mesh
// energies, with the hand-written gradients alongside; JSON + Markdown, and the inputs for bench/mesh_pytorch.py.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cmd_profile_common.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/benchmark.h"

namespace tilegrad::cli {
namespace {

struct MeshProfileArgs : ProfileOptions {
  std::string data_dir = "../shared/data";
  std::vector<std::string> meshes;
  std::vector<std::string> energies;
  bool no_psd = false;
  bool export_inputs = false;
};

void run_mesh_profile(const MeshProfileArgs& a) {
  mesh::BenchmarkConfig cfg;
  cfg.device = a.parsed_device();
  cfg.data_dir = a.data_dir;
  if (!a.meshes.empty()) cfg.meshes = a.meshes;
  if (!a.energies.empty()) cfg.energies = a.energies;
  cfg.warmup = a.warmup;
  cfg.reps = a.reps;
  cfg.psd = !a.no_psd;
  if (a.export_inputs) {
    TG_CHECK_ARG(!a.out.empty(), "--export-inputs needs --out");
    cfg.export_dir = a.out + "/mesh_inputs";
  }
  std::fprintf(a.log(), "mesh energy benchmark on %s (float32), median of %d runs after %d warm-up\n",
               to_string(cfg.device), cfg.reps, cfg.warmup);
  const mesh::BenchmarkReport report = mesh::run_mesh_benchmark(cfg, a.log());
  write_report(a, "mesh", mesh::benchmark_to_json(cfg, report), mesh::benchmark_to_markdown(report));
  if (!cfg.export_dir.empty()) std::fprintf(a.log(), "wrote the inputs in %s\n", cfg.export_dir.c_str());
}

void add_mesh_workload(CLI::App& profile) {
  auto args = std::make_shared<MeshProfileArgs>();
  auto* cmd = profile.add_subcommand("mesh", "Mesh energies: energy, gradient, Hessian assembly (atomic vs owned) and "
                                             "HVP times, hand-written gradients alongside");
  add_profile_options(cmd, *args, "mesh.json and mesh.md");
  cmd->add_option("--data", args->data_dir, "Folder with the shared meshes (armadillo, igea)");
  cmd->add_option("--meshes", args->meshes, "armadillo, igea, cloth-N (N x N cells; default armadillo igea cloth-256 "
                                            "cloth-1000)");
  cmd->add_option("--energies", args->energies,
                  "uniform cotangent symmetric-dirichlet springs bending (default: all)");
  cmd->add_flag("--no-psd", args->no_psd, "Skip the Hessian with per-element PSD projection");
  cmd->add_flag("--export-inputs", args->export_inputs,
                "Also write every case's inputs to OUT/mesh_inputs for bench/mesh_pytorch.py");
  cmd->callback([args] { run_mesh_profile(*args); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(mesh, add_mesh_workload);

}  // namespace tilegrad::cli
