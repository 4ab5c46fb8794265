// `tilegrad train`: a dataset folder in, a trained 3DGS scene out (point_cloud.ply, cameras.json, config.json,
// train_log.jsonl, checkpoint.bin, test renders, metrics.json), with a progress bar, periodic checkpoints, and a
// checkpoint on SIGINT, SIGTERM or SIGHUP. The output folder and every option are checked before data is loaded.
// The run itself is training::run_training (shared with the Python package); this file presents it.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>

#include "commands.h"
#include "stop_signals.h"
#include "tilegrad/training/run.h"
#include "train_options.h"

namespace tilegrad::cli {
namespace {

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
              training::format_duration(p.eta_seconds).c_str(), tty ? "  " : "\n");
  std::fflush(stdout);
}

void run_train(training::RunOptions& a) {
  training::prepare_run(a);
  const bool tty = isatty(fileno(stdout));
  bool bar_on_line = false;  // a progress bar is drawn on the current terminal line
  training::RunEvents events;
  events.message = [&](const std::string& line) {
    std::printf("%s%s\n", bar_on_line ? "\n" : "", line.c_str());
    std::fflush(stdout);
    bar_on_line = false;
  };
  events.progress = [&](const training::Progress& p) {
    print_progress(p, tty);
    bar_on_line = tty;
  };
  // Signals stop training between iterations; outside training (loading, final evaluation) they act as usual.
  std::optional<StopSignals> signals;
  std::string stopped_by;
  int exit_status = 0;
  events.training = [&](bool active) {
    if (active) {
      signals.emplace();
      return;
    }
    if (signals->requested()) {
      stopped_by = signals->name();
      exit_status = signals->exit_status();
    }
    signals.reset();
  };
  events.stop = [&] { return signals && signals->requested(); };
  const training::RunResult r = training::run_training(a, events);
  if (!r.finished) {
    std::printf("%s%s at iteration %d: checkpoint written to %s; continue with\n  %s\n", bar_on_line ? "\n" : "",
                stopped_by.c_str(), r.iteration, r.checkpoint.c_str(), resume_command().c_str());
    std::fflush(stdout);
    throw CLI::RuntimeError(exit_status);
  }
}

void add_train_command(CLI::App& app) {
  auto a = std::make_shared<training::RunOptions>();
  auto* cmd = app.add_subcommand("train",
                                 "Train a 3D Gaussian splatting scene from a dataset folder "
                                 "(NeRF-synthetic, transforms.json or COLMAP)");
  add_train_options(cmd, *a);
  cmd->callback([a] { run_train(*a); });
}

}  // namespace

TG_REGISTER_COMMAND(train, add_train_command);

}  // namespace tilegrad::cli
