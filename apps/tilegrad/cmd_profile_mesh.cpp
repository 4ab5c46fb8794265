// `tilegrad profile mesh`: energy, gradient, Hessian assembly (Atomic vs Owned) and HVP times of the mesh
// energies, with the hand-written gradients alongside; JSON + Markdown, and the inputs for bench/mesh_pytorch.py.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/benchmark.h"
#include "tilegrad/profiling/report.h"

namespace tilegrad::cli {
namespace {

struct MeshProfileArgs {
  std::string device = "auto";
  std::string data_dir = "../shared/data";
  std::vector<std::string> meshes;
  std::vector<std::string> energies;
  int warmup = 3;
  int reps = 20;
  bool no_psd = false;
  std::string out;
  bool export_inputs = false;
};

void run_mesh_profile(const MeshProfileArgs& a) {
  mesh::BenchmarkConfig cfg;
  cfg.device = a.device == "auto" ? default_device() : parse_device(a.device);
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
  std::printf("mesh energy benchmark on %s (float32), median of %d runs after %d warm-up\n", to_string(cfg.device),
              cfg.reps, cfg.warmup);
  const mesh::BenchmarkReport report = mesh::run_mesh_benchmark(cfg, stdout);
  const std::string md = mesh::benchmark_to_markdown(report);
  std::printf("\n%s", md.c_str());
  if (!a.out.empty()) {
    profiling::write_text_file(a.out + "/mesh.json", mesh::benchmark_to_json(cfg, report).dump(2) + "\n");
    profiling::write_text_file(a.out + "/mesh.md", md);
    std::printf("wrote %s/mesh.json and mesh.md%s\n", a.out.c_str(),
                cfg.export_dir.empty() ? "" : (" and the inputs in " + cfg.export_dir).c_str());
  }
}

void add_mesh_workload(CLI::App& profile) {
  auto args = std::make_shared<MeshProfileArgs>();
  auto* cmd = profile.add_subcommand("mesh", "Mesh energies: energy, gradient, Hessian assembly (atomic vs owned) and "
                                             "HVP times, hand-written gradients alongside");
  cmd->add_option("--device", args->device, "cpu, cuda or auto (cuda when available)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--data", args->data_dir, "Folder with the shared meshes (armadillo, igea)");
  cmd->add_option("--meshes", args->meshes, "armadillo, igea, cloth-N (N x N cells; default armadillo igea cloth-256 "
                                            "cloth-1000)");
  cmd->add_option("--energies", args->energies,
                  "uniform cotangent symmetric-dirichlet springs bending (default: all)");
  cmd->add_option("--warmup", args->warmup, "Untimed runs before timing")->check(checks::non_negative());
  cmd->add_option("--reps", args->reps, "Timed runs; the median is reported")->check(checks::positive());
  cmd->add_flag("--no-psd", args->no_psd, "Skip the Hessian with per-element PSD projection");
  cmd->add_option("--out", args->out, "Folder for mesh.json and mesh.md");
  cmd->add_flag("--export-inputs", args->export_inputs,
                "Also write every case's inputs to OUT/mesh_inputs for bench/mesh_pytorch.py");
  cmd->callback([args] { run_mesh_profile(*args); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(mesh, add_mesh_workload);

}  // namespace tilegrad::cli
