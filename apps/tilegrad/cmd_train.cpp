// `tilegrad train`: a dataset folder in, a trained 3DGS scene out (point_cloud.ply, cameras.json, config.json,
// train_log.jsonl, checkpoint.bin, test renders, metrics.json), with a progress bar, periodic checkpoints, and a
// checkpoint on SIGINT, SIGTERM or SIGHUP. The output folder and every option are checked before data is loaded.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cmd_dataset_common.h"
#include "cli_checks.h"
#include "commands.h"
#include "stop_signals.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/outputs.h"
#include "tilegrad/training/run_folder.h"
#include "tilegrad/training/trainer.h"

namespace tilegrad::cli {
namespace {

struct TrainArgs {
  training::DatasetOptions data;
  training::TrainConfig config;
  std::string out, device = "auto", accumulation = "owned", background = "auto", resume;
  bool resume_flag = false, overwrite = false, save_renders = true;
  std::vector<int> eval_at, save_at;  // iterations of periodic evaluations and saves
};

// Iterations of --eval-at / --save-at: each within 1..iterations.
void check_periodic_iterations(const std::vector<int>& list, int iterations, const char* option) {
  for (const int it : list)
    if (it < 1 || it > iterations)
      throw CLI::ValidationError(option, std::to_string(it) + " is not an iteration of this run (1.." +
                                             std::to_string(iterations) + ")");
}

// The command that continues this run: the same arguments, with --resume instead of --overwrite.
std::string resume_command() {
  std::string out;
  bool has_resume = false;
  for (const std::string& arg : command_line()) {
    if (arg == "--overwrite") continue;
    has_resume = has_resume || arg == "--resume" || arg.rfind("--resume-from", 0) == 0;
    const bool plain = arg.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain && !arg.empty() ? arg : "'" + arg + "'");
  }
  return has_resume ? out : out + " --resume";
}

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

std::string format_count(std::size_t n) {
  char buf[32];
  if (n >= 1000000) {
    std::snprintf(buf, sizeof(buf), "%.2fM", double(n) / 1e6);
  } else if (n >= 10000) {
    std::snprintf(buf, sizeof(buf), "%.1fk", double(n) / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%zu", n);
  }
  return buf;
}

// One progress line: bar, iteration, speed, loss, PSNR, Gaussians, ETA. On a terminal it redraws in place.
void print_progress(const training::Progress& p, bool tty) {
  constexpr int kBar = 24;
  const int filled = p.iterations > 0 ? int(double(kBar) * p.iteration / p.iterations) : kBar;
  std::string bar(std::size_t(filled), '#');
  bar.append(std::size_t(kBar - filled), '-');
  std::printf("%s[%s] %6d/%d  %7.1f it/s  loss %.4f  PSNR %5.2f  %7s Gaussians  ETA %s%s", tty ? "\r" : "", bar.c_str(),
              p.iteration, p.iterations, p.iterations_per_second, p.loss, p.psnr, format_count(p.gaussians).c_str(),
              format_duration(p.eta_seconds).c_str(), tty ? "  " : "\n");
  std::fflush(stdout);
}

void run_train(TrainArgs& a) {
  a.config.device = training::device_from_option(a.device);
  a.config.accumulation = parse_accumulation(a.accumulation);
  training::set_background(a.config, a.background);
  a.config.validate();
  check_periodic_iterations(a.eval_at, a.config.iterations, "--eval-at");
  check_periodic_iterations(a.save_at, a.config.iterations, "--save-at");
  a.data.device = a.config.device;
  training::RunFolderOptions folder;
  folder.resume = a.resume_flag || !a.resume.empty();
  folder.overwrite = a.overwrite;
  folder.resume_from = a.resume;
  training::check_run_folder(a.out, folder);
  const std::string checkpoint = training::checkpoint_path(a.out);
  const std::string resume_from = !a.resume.empty() ? a.resume : (a.resume_flag ? checkpoint : "");

  std::printf("tilegrad train on %s (%s accumulation)\n",
              a.config.device == Device::Cuda ? cuda_device_description().c_str() : "cpu",
              to_string(a.config.accumulation));
  const training::TrainingDataset data = training::load_dataset(a.data);
  const raster::Camera& cam0 = data.train.front().camera;
  std::printf("dataset %s (%s): %zu train / %zu test views, %dx%d, extent %.3f, %s\n", data.root.c_str(),
              io::to_string(data.kind), data.train.size(), data.test.size(), cam0.width, cam0.height, data.extent,
              data.points.size() > 0 ? (std::to_string(data.points.size()) + " points from " + data.points_file).c_str()
                                     : "no points (random initialisation)");
  print_dataset_notes(data);

  training::Trainer trainer(a.config, data);
  if (a.overwrite) {
    const std::vector<std::string> removed = training::clear_previous_run(a.out);
    if (!removed.empty()) std::printf("--overwrite: removed %zu outputs of the earlier run in %s\n", removed.size(),
                                      a.out.c_str());
  }
  if (!resume_from.empty()) {
    trainer.resume(resume_from);
    std::printf("resumed from %s at iteration %d (%zu Gaussians)\n", resume_from.c_str(), trainer.iteration(),
                trainer.model().count());
  } else {
    trainer.initialize();
    std::printf("initialised %zu Gaussians\n", trainer.model().count());
  }
  training::write_text_file(a.out + "/config.json", training::run_config_json(a.config, a.data) + "\n");
  const bool on_test = !data.test.empty();
  const auto& views = on_test ? data.test : data.train;
  const std::string split = on_test ? "test" : "train";
  if (resume_from.empty()) {
    // The starting point, so the final metrics show what training gained; at most 16 evenly spaced views (the
    // initial model is dense and slow to render on a CPU).
    const training::Evaluation start = trainer.evaluate(views, {}, 16);
    std::printf("%s views at the start (%zu of %zu): PSNR %.2f dB, SSIM %.4f\n", split.c_str(), start.views.size(),
                views.size(), start.psnr, start.ssim);
  }
  std::vector<const training::TrainingView*> cams;
  for (const auto& v : data.train) cams.push_back(&v);
  for (const auto& v : data.test) cams.push_back(&v);
  training::write_cameras_json(a.out + "/cameras.json", cams);

  std::ofstream log(a.out + "/train_log.jsonl", resume_from.empty() ? std::ios::trunc : std::ios::app);
  const bool tty = isatty(fileno(stdout));
  // Signals stop training between iterations; outside training (loading, final evaluation) they act as usual.
  std::optional<StopSignals> signals(std::in_place);
  training::Trainer::RunHooks hooks;
  hooks.stop = [&] { return signals->requested(); };
  hooks.report = [&](const training::Progress& p) {
    print_progress(p, tty);
    log << training::progress_json_line(p) << "\n" << std::flush;
  };
  hooks.checkpoint_path = checkpoint;
  hooks.at_iterations = a.eval_at;
  hooks.at_iterations.insert(hooks.at_iterations.end(), a.save_at.begin(), a.save_at.end());
  hooks.at_iteration = [&](int it) {
    if (std::find(a.eval_at.begin(), a.eval_at.end(), it) != a.eval_at.end()) {
      const training::Evaluation e = trainer.evaluate(views);
      std::printf("%s[eval] iteration %d, %s views (%zu): PSNR %.2f dB, SSIM %.4f, L1 %.4f\n", tty ? "\n" : "", it,
                  split.c_str(), e.views.size(), e.psnr, e.ssim, e.l1);
      log << training::evaluation_json_line(it, split, e) << "\n" << std::flush;
    }
    if (std::find(a.save_at.begin(), a.save_at.end(), it) != a.save_at.end()) {
      const std::string ply = a.out + "/point_cloud_" + std::to_string(it) + ".ply";
      io::write_gaussians_ply(ply, trainer.model().params);
      std::printf("%s[save] iteration %d: %s (%zu Gaussians)\n", tty ? "\n" : "", it, ply.c_str(),
                  trainer.model().count());
    }
  };
  const bool finished = trainer.run(hooks);
  if (tty) std::printf("\n");
  trainer.save_checkpoint(checkpoint);
  if (!finished) {
    std::printf("%s at iteration %d: checkpoint written to %s; continue with\n  %s\n", signals->name(),
                trainer.iteration(), checkpoint.c_str(), resume_command().c_str());
    std::fflush(stdout);
    throw CLI::RuntimeError(signals->exit_status());
  }
  signals.reset();

  const training::StageTimes t = trainer.stage_times();
  std::printf("trained %d iterations in %.1f s (%s): %zu Gaussians\n", trainer.iteration(), trainer.training_seconds(),
              format_duration(trainer.training_seconds()).c_str(), trainer.model().count());
  std::printf(
      "per iteration: render %.3f ms, loss %.3f ms, backward %.3f ms, optimizer %.3f ms, densify %.3f ms "
      "(sum %.3f ms)\n",
      t.render, t.loss, t.backward, t.optimizer, t.densify, t.total());
  const training::CheckpointStats& ck = trainer.checkpoint_stats();
  std::printf("checkpoints: %d, training waited %.2f s for them (%.2f%% of the training time; not included in it)\n",
              ck.count,
              ck.seconds, trainer.training_seconds() > 0 ? 100.0 * ck.seconds / trainer.training_seconds() : 0.0);
  io::write_gaussians_ply(a.out + "/point_cloud.ply", trainer.model().params);

  training::Evaluation e = trainer.evaluate(
      views, a.save_renders ? training::png_sink(a.out + "/renders/" + split) : training::RenderSink{});
  e.split = split;
  training::RunSummary summary;
  summary.iterations = trainer.iteration();
  summary.training_seconds = trainer.training_seconds();
  summary.gaussians = trainer.model().count();
  summary.peak_gpu_bytes = a.config.device == Device::Cuda ? memory::stats(Device::Cuda).peak : 0;
  summary.times = t;
  summary.checkpoints = trainer.checkpoint_stats();
  summary.segments = trainer.segments();
  summary.device = a.config.device == Device::Cuda ? cuda_device_description() : "cpu";
  summary.dataset = data.root;
  training::write_metrics_json(a.out + "/metrics.json", e, &summary);
  std::printf("%s views (%zu): PSNR %.2f dB, SSIM %.4f, L1 %.4f\n", split.c_str(), e.views.size(), e.psnr, e.ssim,
              e.l1);
  if (summary.peak_gpu_bytes > 0)
    std::printf("peak GPU memory %.2f GiB\n", double(summary.peak_gpu_bytes) / double(1 << 30));
  std::printf(
      "wrote %s/{point_cloud.ply, cameras.json, config.json, train_log.jsonl, checkpoint.bin, metrics.json%s}\n",
      a.out.c_str(), a.save_renders ? (", renders/" + split + "/").c_str() : "");
}

void add_train_command(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  training::TrainConfig& c = a->config;
  auto* cmd = app.add_subcommand("train",
                                 "Train a 3D Gaussian splatting scene from a dataset folder "
                                 "(NeRF-synthetic, transforms.json or COLMAP)");
  add_dataset_options(cmd, a->data, a->device);
  add_capture_options(cmd, a->data);
  cmd->add_option("--out", a->out, "Output folder")->required();
  cmd->add_option("--iters", c.iterations, "Training iterations")->check(checks::positive())->capture_default_str();
  cmd->add_option("--accumulation", a->accumulation,
                  "Backward accumulation: owned (deterministic, default), sort-reduce (deterministic), warp, atomic")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of every random choice (views, initial points, splits, backgrounds)")
      ->capture_default_str();
  cmd->add_option("--background", a->background,
                  "auto (white for images with alpha, else black), white, black, random (per step) or r,g,b")
      ->capture_default_str();
  cmd->add_option("--sh-degree", c.sh_degree, "Spherical-harmonics degree trained (0..3)")
      ->check(checks::range(0, 3))
      ->capture_default_str();
  cmd->add_option("--sh-degree-every", c.sh_degree_every, "Iterations between SH degree increases")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--lambda-dssim", c.lambda_dssim, "Weight of (1 - SSIM) in the loss")
      ->check(checks::range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_flag("--antialiased", c.antialiased, "Antialiased rasterization (opacity compensation)");
  cmd->add_option("--init-points", c.init_points, "Random initial points when the dataset has none")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--init-extent", c.init_half_size,
                  "Half size of the random-point cube (0: 1.3 for NeRF-synthetic, else the camera extent)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--init-opacity", c.init_opacity, "Initial opacity")
      ->check(checks::range(0.0, 1.0))
      ->capture_default_str();
  // Learning rates (3DGS defaults).
  cmd->add_option("--lr-position", c.lr.position, "Initial position learning rate (x scene extent)")
      ->check(checks::positive())->capture_default_str();
  cmd->add_option("--lr-position-final", c.lr.position_final, "Final position learning rate (x scene extent)")
      ->check(checks::positive())->capture_default_str();
  cmd->add_option("--lr-position-steps", c.lr.position_steps, "Iterations of the position decay (0: --iters)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--lr-sh-dc", c.lr.sh_dc, "SH DC learning rate")->check(checks::positive())->capture_default_str();
  cmd->add_option("--lr-sh-rest", c.lr.sh_rest, "Higher SH bands learning rate")->check(checks::non_negative())->capture_default_str();
  cmd->add_option("--lr-opacity", c.lr.opacity, "Opacity learning rate")->check(checks::positive())->capture_default_str();
  cmd->add_option("--lr-scale", c.lr.scale, "Scale learning rate")->check(checks::positive())->capture_default_str();
  cmd->add_option("--lr-rotation", c.lr.rotation, "Rotation learning rate")->check(checks::positive())->capture_default_str();
  cmd->add_option("--adam-eps", c.adam.eps, "Adam epsilon")->check(checks::positive())->capture_default_str();
  // Densification.
  cmd->add_option("--densify-from", c.densify.from, "First densification after this iteration")->capture_default_str();
  cmd->add_option("--densify-until", c.densify.until, "No densification, statistics or opacity reset from here")
      ->capture_default_str();
  cmd->add_option("--densify-every", c.densify.every, "Iterations between densifications")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--densify-grad", c.densify.grad_threshold, "Mean view-space gradient threshold (NDC units)")
      ->capture_default_str();
  cmd->add_option("--percent-dense", c.densify.percent_dense, "Clone/split size boundary (fraction of the extent)")
      ->capture_default_str();
  cmd->add_option("--min-opacity", c.densify.min_opacity, "Prune below this opacity")->capture_default_str();
  cmd->add_option("--opacity-reset-every", c.densify.opacity_reset_every,
                  "Iterations between opacity resets (0: never)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--max-world-size", c.densify.max_world_size,
                  "Prune Gaussians larger than this fraction of the extent after the first reset (0: off)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option_function<std::string>(
         "--densify-visibility",
         [&c](const std::string& v) { c.densify.opacity_aware_visibility = v == "alpha"; },
         "Views that count for the mean densification gradient: alpha (the splat reaches a pixel at alpha >= 1/255) "
         "or footprint (its 3-sigma footprint touches the image, as the original 3DGS and gsplat count)")
      ->check(CLI::IsMember({"alpha", "footprint"}))
      ->default_str("alpha");
  cmd->add_option("--max-screen-size", c.densify.max_screen_size,
                  "Prune Gaussians whose footprint radius exceeded this many pixels after the first reset (0: off)")
      ->check(checks::non_negative())
      ->capture_default_str();
  // Bookkeeping.
  cmd->add_option("--log-every", c.log_every, "Iterations between progress reports and log lines")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", c.checkpoint_every,
                  "Iterations between checkpoints (0: none but at the end and on interruption)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--checkpoint-minutes", c.checkpoint_minutes,
                  "Also checkpoint after this much wall time since the last one (0: by iterations only)")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--timing-every", c.timing_every, "GPU stage timing samples one iteration in this many")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_flag("--resume", a->resume_flag,
                "Continue from OUT/checkpoint.bin (same options and data as the first run: checked)");
  cmd->add_flag("--overwrite", a->overwrite,
                "Replace the earlier run in OUT: its outputs (checkpoint, .ply, metrics, logs, renders) are deleted");
  cmd->add_option("--resume-from", a->resume, "Continue from this checkpoint file");
  cmd->add_flag("!--no-renders", a->save_renders, "Do not write the test renders");
  cmd->add_option("--eval-at", a->eval_at,
                  "Iterations at which the test views are evaluated (PSNR, SSIM, L1 printed and logged to "
                  "train_log.jsonl), e.g. 7000,30000")
      ->delimiter(',');
  cmd->add_option("--save-at", a->save_at, "Iterations at which OUT/point_cloud_<iteration>.ply is written")
      ->delimiter(',');
  cmd->callback([a] { run_train(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(train, add_train_command);

}  // namespace tilegrad::cli
