// The options of `tilegrad train` (see train_options.h).
#include "train_options.h"

#include "cli_checks.h"
#include "cmd_dataset_common.h"

namespace tilegrad::cli {

void add_train_options(CLI::App* cmd, training::RunOptions& a) {
  training::TrainConfig& c = a.config;
  add_dataset_options(cmd, a.data, a.device);
  add_capture_options(cmd, a.data);
  cmd->add_option("--out", a.out, "Output folder")->required();
  cmd->add_option("--iters", c.iterations, "Training iterations")->check(checks::positive())->capture_default_str();
  cmd->add_option("--accumulation", a.accumulation,
                  "Backward accumulation: owned (deterministic, default), sort-reduce (deterministic), warp, atomic")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of every random choice (views, initial points, splits, backgrounds)")
      ->capture_default_str();
  cmd->add_option("--background", a.background,
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
  cmd->add_flag("--resume", a.resume,
                "Continue from OUT/checkpoint.bin (same options and data as the first run: checked)");
  cmd->add_flag("--overwrite", a.overwrite,
                "Replace the earlier run in OUT: its outputs (checkpoint, .ply, metrics, logs, renders) are deleted");
  cmd->add_option("--resume-from", a.resume_from, "Continue from this checkpoint file");
  cmd->add_flag("!--no-renders", a.save_renders, "Do not write the test renders");
  cmd->add_option("--eval-at", a.eval_at,
                  "Iterations at which the test views are evaluated (PSNR, SSIM, L1 printed and logged to "
                  "train_log.jsonl), e.g. 7000,30000")
      ->delimiter(',');
  cmd->add_option("--save-at", a.save_at, "Iterations at which OUT/point_cloud_<iteration>.ply is written")
      ->delimiter(',');
  // Several devices (docs/TRAINING.md, "Training on several devices").
  cmd->add_option("--gpus", a.gpus,
                  "Train on N GPUs (or 'all' visible ones), one NCCL rank each (data parallel: an iteration trains "
                  "one view per GPU)");
  cmd->add_option("--ranks", a.ranks, "Train with N simulated ranks on the CPU (tests, small runs)")
      ->check(checks::range(1, 4096));
  cmd->add_option("--parallel", a.parallel,
                  "With several ranks: data (a replica per rank, one view each per iteration) or gaussians (the "
                  "Gaussians split over the ranks, each renders a region of every view)")
      ->check(CLI::IsMember({"data", "gaussians"}))
      ->capture_default_str();
  cmd->add_flag("--scale-for-views", c.distributed.scale_for_views,
                "Data parallel: learning rates x sqrt(N) and Adam betas to the power N, for runs that divide --iters "
                "by N to see as many views as one GPU");
}

}  // namespace tilegrad::cli
