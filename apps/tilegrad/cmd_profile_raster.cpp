// `tilegrad profile raster`: forward stages and the backward of every accumulation mode on the garden grid
// benchmark workload or on a .ply scene; Markdown + JSON report.
#include <cstdio>
#include <string>
#include <vector>

#include "cmd_profile_common.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/profiling/garden_grid.h"
#include "tilegrad/profiling/raster_benchmark.h"

namespace tilegrad::cli {
namespace {

struct RasterArgs : ProfileOptions {
  std::string points, ply, transforms;
  std::vector<int> grids = {1, 5, 15};
  int frame = 0;
  std::uint64_t seed = 0;
  std::string colors = "sh";
  std::vector<std::string> modes;
  bool antialiased = false;
  double record_limit_mib = 0;
  std::string dump;
};

void run_raster(const RasterArgs& a) {
  profiling::RasterBenchConfig cfg;
  cfg.device = a.parsed_device();
  cfg.warmup = a.warmup;
  cfg.reps = a.reps;
  cfg.settings.antialiased = a.antialiased;
  cfg.max_record_bytes = static_cast<std::size_t>(a.record_limit_mib * 1024.0 * 1024.0);
  cfg.dump_dir = a.dump;
  if (!a.modes.empty()) {
    cfg.modes.clear();
    for (const auto& m : a.modes) cfg.modes.push_back(parse_accumulation(m));
  }
  TG_CHECK_ARG(!a.transforms.empty(), "--transforms is required (the camera comes from its frame --frame)");
  TG_CHECK_ARG(a.points.empty() != a.ply.empty(), "give exactly one of --points (garden grid workload) or --ply");
  const raster::Camera camera = profiling::load_benchmark_camera(a.transforms, a.frame);
  std::FILE* log = a.log();
  std::fprintf(log, "raster benchmark on %s: %dx%d, median of %d runs after %d warm-up",
               cfg.device == Device::Cuda ? cuda_device_description().c_str() : "cpu", camera.width, camera.height,
               cfg.reps, cfg.warmup);
  if (cfg.max_record_bytes > 0) std::fprintf(log, ", Owned records at most %.1f MiB", a.record_limit_mib);
  std::fprintf(log, "\n");
  std::vector<profiling::RasterBenchResult> results;
  if (!a.ply.empty()) {
    const raster::Gaussians g = io::read_gaussians_ply(a.ply).to(cfg.device);
    results.push_back(profiling::run_raster_benchmark(a.ply, g, camera, cfg, log));
  } else {
    const io::PointCloud points = io::read_points_ply(a.points);
    std::vector<bool> rgb_variants;
    if (a.colors == "sh" || a.colors == "both") rgb_variants.push_back(false);
    if (a.colors == "rgb" || a.colors == "both") rgb_variants.push_back(true);
    for (int grid : a.grids) {
      for (bool rgb : rgb_variants) {
        profiling::GardenGridOptions o;
        o.grid = grid;
        o.seed = a.seed;
        o.precomputed_colors = rgb;
        raster::Gaussians g = profiling::make_garden_grid(points, o).to(cfg.device);
        const std::string name = "garden grid " + std::to_string(grid) + (rgb ? " (RGB)" : " (SH3)");
        results.push_back(profiling::run_raster_benchmark(name, g, camera, cfg, log));
      }
    }
  }
  const auto json = profiling::raster_results_to_json(cfg, results);
  if (write_report(a, "raster", json, profiling::raster_results_to_markdown(results)))
    profiling::write_raster_chart(a.out + "/raster.png", results);
}

void add_raster_workload(CLI::App& profile) {
  auto a = std::make_shared<RasterArgs>();
  auto* cmd = profile.add_subcommand("raster", "3DGS forward stages and backward per accumulation mode "
                                               "(garden grid workload from a point cloud, or a .ply scene)");
  add_profile_options(cmd, *a, "raster.json, raster.md and raster.png");
  cmd->add_option("--points", a->points, "Point cloud .ply of the garden grid workload (garden_points/points.ply)");
  cmd->add_option("--ply", a->ply, "A 3DGS .ply scene instead of the garden grid");
  cmd->add_option("--transforms", a->transforms, "transforms.json whose frame --frame is the camera")->required();
  cmd->add_option("--grid", a->grids, "Grid sizes G (odd) of the garden workload")->check(checks::positive());
  cmd->add_option("--frame", a->frame, "Camera frame index");
  cmd->add_option("--seed", a->seed, "Seed of the random Gaussian attributes");
  cmd->add_option("--colors", a->colors, "sh (degree 3), rgb (precomputed) or both")
      ->check(CLI::IsMember({"sh", "rgb", "both"}));
  cmd->add_option("--modes", a->modes, "Backward accumulation modes (default all)");
  cmd->add_flag("--antialiased", a->antialiased, "Antialiased EWA mode");
  cmd->add_option("--record-limit", a->record_limit_mib,
                  "MiB the Owned backward's per-instance records may take at once (CUDA; 0: no limit): above it "
                  "the tiles run in strips of tile rows")
      ->check(checks::non_negative());
  cmd->add_option("--dump", a->dump,
                  "Folder for each workload's image and Owned gradients as raw float32 (<workload>.f32), to compare "
                  "builds bit for bit (the digests printed and in raster.json compare them too)");
  cmd->callback([a] { run_raster(*a); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(raster, add_raster_workload);

}  // namespace tilegrad::cli
