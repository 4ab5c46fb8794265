// `tilegrad profile raster`: forward stages and the backward of every accumulation mode on the garden grid
// benchmark workload or on a .ply scene; Markdown + JSON report.
#include <cstdio>
#include <string>
#include <vector>

#include "cmd_profile_common.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
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
  std::string depth_chunk = "auto";
  std::string dump;
  std::vector<std::string> sorts = {"cub"};
  std::vector<std::string> resolutions;
  int width = 0, height = 0;
};

// The benchmark cameras: frame --frame of --transforms, resized (the same view) to each --resolution or to
// --width x --height; the frame's own size without either.
std::vector<raster::Camera> benchmark_cameras(const RasterArgs& a) {
  const raster::Camera camera = profiling::load_benchmark_camera(a.transforms, a.frame);
  TG_CHECK_ARG(a.resolutions.empty() || (a.width == 0 && a.height == 0),
               "give --resolution or --width/--height, not both");
  TG_CHECK_ARG((a.width == 0) == (a.height == 0), "--width and --height go together");
  if (a.width > 0) return {raster::resized_camera(camera, a.width, a.height)};
  if (a.resolutions.empty()) return {camera};
  std::vector<raster::Camera> cameras;
  for (const std::string& r : a.resolutions) {
    const int height = r == "720p" ? 720 : r == "1080p" ? 1080 : 2160;
    cameras.push_back(raster::resized_camera(camera, height * 16 / 9, height));
  }
  return cameras;
}

// --depth-chunk: "auto" or a count of instances (0: whole tiles).
std::uint32_t parse_depth_chunk(const std::string& text) {
  if (text == "auto") return raster::BackwardSettings::kAutoDepthChunk;
  std::size_t used = 0;
  unsigned long value = 0;
  try {
    value = std::stoul(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  TG_CHECK_ARG(used == text.size() && !text.empty() && text[0] != '-' &&
                   value < raster::BackwardSettings::kAutoDepthChunk,
               "--depth-chunk: expected auto or a count of instances (0: whole tiles), got '", text, "'");
  return std::uint32_t(value);
}

void run_raster(const RasterArgs& a) {
  profiling::RasterBenchConfig cfg;
  cfg.device = a.parsed_device();
  cfg.warmup = a.warmup;
  cfg.reps = a.reps;
  cfg.settings.antialiased = a.antialiased;
  cfg.max_record_bytes = static_cast<std::size_t>(a.record_limit_mib * 1024.0 * 1024.0);
  cfg.dump_dir = a.dump;
  cfg.depth_chunk = parse_depth_chunk(a.depth_chunk);
  if (!a.modes.empty()) {
    cfg.modes.clear();
    for (const auto& m : a.modes) cfg.modes.push_back(parse_accumulation(m));
  }
  TG_CHECK_ARG(!a.transforms.empty(), "--transforms is required (the camera comes from its frame --frame)");
  TG_CHECK_ARG(a.points.empty() != a.ply.empty(), "give exactly one of --points (garden grid workload) or --ply");
  const std::vector<raster::Camera> cameras = benchmark_cameras(a);
  std::vector<raster::Binning> sorts;
  for (const auto& name : a.sorts) sorts.push_back(profiling::parse_binning(name));
  std::FILE* log = a.log();
  std::string sizes;
  for (const raster::Camera& c : cameras)
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(c.width) + "x" + std::to_string(c.height);
  std::fprintf(log, "raster benchmark on %s: %s, median of %d runs after %d warm-up",
               cfg.device == Device::Cuda ? cuda_device_description().c_str() : "cpu", sizes.c_str(), cfg.reps,
               cfg.warmup);
  if (cfg.max_record_bytes > 0) std::fprintf(log, ", Owned records at most %.1f MiB", a.record_limit_mib);
  if (cfg.depth_chunk == raster::BackwardSettings::kAutoDepthChunk) std::fprintf(log, ", automatic depth chunks");
  else if (cfg.depth_chunk == 0) std::fprintf(log, ", backward in whole tiles");
  else std::fprintf(log, ", depth chunks of %u instances", cfg.depth_chunk);
  std::fprintf(log, "\n");
  std::vector<profiling::RasterBenchResult> results;
  // The Gaussians go to the device once per set and serve every size and sort. What the device cannot hold is
  // recorded as out of memory (stage and bytes) and the profile goes on with the next.
  auto run_sorts = [&](const std::string& name, const raster::Gaussians& host) {
    auto workload_name = [&](const raster::Camera& camera) {  // with several sizes each names its workload
      return cameras.size() == 1 ? name
                                 : name + " at " + std::to_string(camera.width) + "x" + std::to_string(camera.height);
    };
    raster::Gaussians g;
    try {
      const memory::StageScope stage("raster benchmark: the Gaussians on the device");
      g = host.to(cfg.device);
    } catch (const OutOfMemory& e) {
      for (const raster::Camera& camera : cameras)
        for (raster::Binning sort : sorts) {
          cfg.settings.binning = sort;
          results.push_back(profiling::out_of_memory_result(workload_name(camera), host.count(), camera, cfg, e, log));
        }
      return;
    }
    for (const raster::Camera& camera : cameras)
      for (raster::Binning sort : sorts) {
        cfg.settings.binning = sort;
        try {
          results.push_back(profiling::run_raster_benchmark(workload_name(camera), g, camera, cfg, log));
        } catch (const OutOfMemory& e) {
          results.push_back(profiling::out_of_memory_result(workload_name(camera), host.count(), camera, cfg, e, log));
        }
      }
  };
  if (!a.ply.empty()) {
    run_sorts(a.ply, io::read_gaussians_ply(a.ply));
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
        run_sorts("garden grid " + std::to_string(grid) + (rgb ? " (RGB)" : " (SH3)"),
                  profiling::make_garden_grid(points, o));
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
  cmd->footer("A workload that runs out of memory is reported as \"out of memory at <stage>: <bytes>\" (printed, "
              "and in raster.json and raster.md) and the profile goes on with the next one.");
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
  cmd->add_option("--depth-chunk", a->depth_chunk,
                  "Instances of one tile's depth list per block of the blend backward (CUDA; 0: whole tiles; auto: "
                  "one resident block's share of each launch's instances, 512 to 4096): denser tiles are split "
                  "across blocks. The gradients' bits do not depend on it")
      ->capture_default_str();
  cmd->add_option("--sort", a->sorts,
                  "Instance sort(s) of the forward's binning, each workload run with each: cub (default: a depth "
                  "sort of the visible Gaussians, then a stable sort of the instances by tile id) or thrust (the "
                  "original 3DGS binning: one thrust sort of 8-byte tile | depth keys over all instances). Both "
                  "give the same bits; the report gives each one's sort time and peak memory")
      ->check(CLI::IsMember({"cub", "thrust"}))
      ->capture_default_str();
  cmd->add_option("--resolution", a->resolutions,
                  "Render the frame at 720p (1280x720), 1080p (1920x1080) and/or 4k (3840x2160), each workload at "
                  "each: the intrinsics are scaled so that the view stays the same (default: the frame's own size)")
      ->check(CLI::IsMember({"720p", "1080p", "4k"}));
  cmd->add_option("--width", a->width, "Render the frame at this width (with --height; intrinsics scaled)")
      ->check(checks::positive());
  cmd->add_option("--height", a->height, "Render the frame at this height (with --width; intrinsics scaled)")
      ->check(checks::positive());
  cmd->add_option("--dump", a->dump,
                  "Folder for each workload's image and Owned gradients as raw float32 (<workload>.f32), to compare "
                  "builds bit for bit (the digests printed and in raster.json compare them too)");
  cmd->callback([a] { run_raster(*a); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(raster, add_raster_workload);

}  // namespace tilegrad::cli
