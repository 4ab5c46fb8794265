// The training run shared by the command line and the Python package (see run.h).
#include "tilegrad/training/run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <type_traits>

#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/distributed/distributed_trainer.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/run_folder.h"

namespace tilegrad::training {

namespace {

using detail::concat;

void check_iterations(const std::vector<int>& list, int iterations, const char* option) {
  for (const int it : list)
    TG_CHECK_ARG(it >= 1 && it <= iterations, option, ": ", it, " is not an iteration of this run (1..", iterations,
                 ")");
}

bool contains(const std::vector<int>& list, int value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string printf_string(const char* format, double a, double b, double c) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
}

}  // namespace

std::vector<std::string> dataset_notes(const TrainingDataset& data) {
  std::vector<std::string> lines;
  for (const std::string& note : data.notes) lines.push_back("note: " + note);
  if (!data.skipped.empty()) {
    std::string names;
    for (std::size_t i = 0; i < data.skipped.size() && i < 10; ++i) names += (i ? ", " : "") + data.skipped[i];
    if (data.skipped.size() > 10) names += ", ...";
    lines.push_back(concat("warning: left out ", data.skipped.size(),
                           " frame(s) whose image file is missing (--skip-missing-images): ", names));
  }
  return lines;
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

void prepare_run(RunOptions& o) {
  o.gpu_devices.clear();
  if (!o.gpus.empty()) {
    TG_CHECK_ARG(o.device != "cpu", "--gpus trains on GPUs: use --ranks N for simulated ranks on the CPU");
    TG_CHECK_ARG(o.ranks == 0, "--gpus and --ranks are exclusive");
    o.device = "cuda";
    o.gpu_devices = distributed::gpus_from_option(o.gpus);
    o.config.distributed.ranks = int(o.gpu_devices.size());
  } else if (o.ranks > 0) {
    TG_CHECK_ARG(o.device == "cpu" || o.device == "auto", "--ranks simulates ranks on the CPU: use --gpus on GPUs");
    o.device = "cpu";
    o.config.distributed.ranks = o.ranks;
  }
  o.config.distributed.mode = parse_parallelism(o.parallel);
  o.config.device = device_from_option(o.device);
  o.config.accumulation = parse_accumulation(o.accumulation);
  set_background(o.config, o.background);
  o.config.validate();
  check_iterations(o.eval_at, o.config.iterations, "--eval-at");
  check_iterations(o.save_at, o.config.iterations, "--save-at");
  // Ranks copy the images to their own GPUs (or share them on the host) from a host copy.
  o.data.device = o.distributed() ? Device::Cpu : o.config.device;
  RunFolderOptions folder;
  folder.resume = o.resume || !o.resume_from.empty();
  folder.overwrite = o.overwrite;
  folder.resume_from = o.resume_from;
  check_run_folder(o.out, folder);
}

namespace {

// The run after loading, with either trainer (training::Trainer or distributed::DistributedTrainer, which share
// their interface).
template <class TrainerType>
RunResult train_and_write(const RunOptions& o, const RunEvents& events, const TrainingDataset& data,
                          TrainerType& trainer, const std::string& resume_from, RunResult result) {
  auto say = [&](const std::string& line) {
    if (events.message) events.message(line);
  };
  const TrainConfig& config = o.config;
  if (o.overwrite) {
    const std::vector<std::string> removed = clear_previous_run(o.out);
    if (!removed.empty()) say(concat("--overwrite: removed ", removed.size(), " outputs of the earlier run in ", o.out));
  }
  if (!resume_from.empty()) {
    trainer.resume(resume_from);
    say(concat("resumed from ", resume_from, " at iteration ", trainer.iteration(), " (", trainer.model().count(),
               " Gaussians)"));
  } else {
    trainer.initialize();
    say(concat("initialised ", trainer.model().count(), " Gaussians"));
  }
  write_text_file(o.out + "/config.json", run_config_json(config, o.data) + "\n");
  const bool on_test = !data.test.empty();
  const auto& views = on_test ? data.test : data.train;
  result.split = on_test ? "test" : "train";
  if (resume_from.empty()) {
    // The starting point, so the final metrics show what training gained; at most 16 evenly spaced views (the
    // initial model is dense and slow to render on a CPU).
    const Evaluation start = trainer.evaluate(views, {}, 16);
    say(concat(result.split, " views at the start (", start.views.size(), " of ", views.size(), "): ",
               printf_string("PSNR %.2f dB, SSIM %.4f", start.psnr, start.ssim, 0)));
  }
  std::vector<const TrainingView*> cams;
  for (const auto& v : data.train) cams.push_back(&v);
  for (const auto& v : data.test) cams.push_back(&v);
  write_cameras_json(o.out + "/cameras.json", cams);

  std::ofstream log(o.out + "/train_log.jsonl", resume_from.empty() ? std::ios::trunc : std::ios::app);
  Trainer::RunHooks hooks;
  hooks.stop = events.stop;
  hooks.report = [&](const Progress& p) {
    if (events.progress) events.progress(p);
    log << progress_json_line(p) << "\n" << std::flush;
  };
  hooks.checkpoint_path = result.checkpoint;
  hooks.at_iterations = o.eval_at;
  hooks.at_iterations.insert(hooks.at_iterations.end(), o.save_at.begin(), o.save_at.end());
  hooks.at_iteration = [&](int it) {
    if (contains(o.eval_at, it)) {
      const Evaluation e = trainer.evaluate(views);
      say(concat("[eval] iteration ", it, ", ", result.split, " views (", e.views.size(), "): ",
                 printf_string("PSNR %.2f dB, SSIM %.4f, L1 %.4f", e.psnr, e.ssim, e.l1)));
      log << evaluation_json_line(it, result.split, e) << "\n" << std::flush;
    }
    if (contains(o.save_at, it)) {
      const std::string ply = o.out + "/point_cloud_" + std::to_string(it) + ".ply";
      io::write_gaussians_ply(ply, trainer.model().params);
      say(concat("[save] iteration ", it, ": ", ply, " (", trainer.model().count(), " Gaussians)"));
    }
  };
  if (events.training) events.training(true);
  result.finished = trainer.run(hooks);
  trainer.save_checkpoint(result.checkpoint);
  if (events.training) events.training(false);
  result.iteration = trainer.iteration();
  if (!result.finished) return result;

  const StageTimes t = trainer.stage_times();
  const CheckpointStats& ck = trainer.checkpoint_stats();
  say(concat("trained ", trainer.iteration(), " iterations in ",
             printf_string("%.1f s", trainer.training_seconds(), 0, 0), " (", format_duration(trainer.training_seconds()),
             "): ", trainer.model().count(), " Gaussians"));
  char line[320];
  std::snprintf(line, sizeof(line),
                "per iteration: render %.3f ms, loss %.3f ms, backward %.3f ms, optimizer %.3f ms, densify %.3f ms "
                "(sum %.3f ms)",
                t.render, t.loss, t.backward, t.optimizer, t.densify, t.total());
  say(line);
  std::snprintf(line, sizeof(line),
                "checkpoints: %d, training waited %.2f s for them (%.2f%% of the training time; not included in it)",
                ck.count, ck.seconds,
                trainer.training_seconds() > 0 ? 100.0 * ck.seconds / trainer.training_seconds() : 0.0);
  say(line);
  io::write_gaussians_ply(o.out + "/point_cloud.ply", trainer.model().params);

  Evaluation& e = result.evaluation;
  e = trainer.evaluate(views, o.save_renders ? png_sink(o.out + "/renders/" + result.split) : RenderSink{});
  e.split = result.split;
  RunSummary& summary = result.summary;
  summary.iterations = trainer.iteration();
  summary.training_seconds = trainer.training_seconds();
  summary.gaussians = trainer.model().count();
  summary.peak_gpu_bytes = config.device == Device::Cuda ? memory::stats(Device::Cuda).peak : 0;
  summary.times = t;
  summary.checkpoints = ck;
  summary.segments = trainer.segments();
  summary.device = config.device == Device::Cuda ? cuda_device_description() : "cpu";
  summary.dataset = data.root;
  if constexpr (std::is_same_v<TrainerType, distributed::DistributedTrainer>) {
    // Per rank; the process-wide peak above adds the GPUs up, so the largest single GPU's peak replaces it.
    const distributed::DistributedReport report = trainer.report();
    summary.distributed = report.json();
    summary.peak_gpu_bytes = 0;
    for (const distributed::RankReport& r : report.per_rank) {
      summary.peak_gpu_bytes = std::max(summary.peak_gpu_bytes, r.peak_gpu_bytes);
      std::snprintf(line, sizeof(line),
                    "rank %d%s: %zu Gaussians, %.3f ms per iteration (compute %.3f, communication %.3f, apply %.3f), "
                    "%.2f MB per iteration",
                    r.rank, r.gpu >= 0 ? concat(" (GPU ", r.gpu, ")").c_str() : "", r.gaussians, r.step_ms,
                    r.compute_ms, r.communication_ms, r.apply_ms, r.bytes_per_iteration / 1e6);
      say(r.peak_gpu_bytes > 0
              ? std::string(line) + printf_string(", peak %.2f GiB", double(r.peak_gpu_bytes) / double(1 << 30), 0, 0)
              : std::string(line));
    }
    say(concat(printf_string("communication share %.1f%%", 100.0 * report.communication_share(), 0, 0),
               " (largest over the ranks), ", report.views_per_iteration, " view(s) per iteration"));
  }
  write_metrics_json(o.out + "/metrics.json", e, &summary);
  say(concat(result.split, " views (", e.views.size(), "): ",
             printf_string("PSNR %.2f dB, SSIM %.4f, L1 %.4f", e.psnr, e.ssim, e.l1)));
  if (summary.peak_gpu_bytes > 0)
    say(printf_string("peak GPU memory %.2f GiB", double(summary.peak_gpu_bytes) / double(1 << 30), 0, 0));
  say(concat("wrote ", o.out, "/{point_cloud.ply, cameras.json, config.json, train_log.jsonl, checkpoint.bin, ",
             "metrics.json", o.save_renders ? ", renders/" + result.split + "/" : std::string(), "}"));
  return result;
}


}  // namespace

RunResult run_training(const RunOptions& o, const RunEvents& events) {
  auto say = [&](const std::string& line) {
    if (events.message) events.message(line);
  };
  RunResult result;
  result.checkpoint = checkpoint_path(o.out);
  const std::string resume_from = !o.resume_from.empty() ? o.resume_from : (o.resume ? result.checkpoint : "");
  const TrainConfig& config = o.config;

  say(concat("tilegrad train on ", config.device == Device::Cuda ? cuda_device_description() : std::string("cpu"),
             " (", to_string(config.accumulation), " accumulation)"));
  if (o.distributed())
    say(concat(config.distributed.ranks, config.device == Device::Cuda ? " GPU (NCCL)" : " simulated CPU", " ranks, ",
               to_string(config.distributed.mode), " parallel"));
  const TrainingDataset data = load_dataset(o.data);
  const raster::Camera& cam0 = data.train.front().camera;
  say(concat("dataset ", data.root, " (", io::to_string(data.kind), "): ", data.train.size(), " train / ",
             data.test.size(), " test views, ", cam0.width, "x", cam0.height, ", extent ",
             printf_string("%.3f", data.extent, 0, 0), ", ",
             data.points.size() > 0 ? concat(data.points.size(), " points from ", data.points_file)
                                    : std::string("no points (random initialisation)")));
  for (const std::string& line : dataset_notes(data)) say(line);

  if (o.distributed()) {
    distributed::DistributedTrainer trainer(config, data,
                                            config.device == Device::Cuda
                                                ? distributed::make_nccl_group(o.gpu_devices)
                                                : distributed::make_simulated_group(config.distributed.ranks));
    return train_and_write(o, events, data, trainer, resume_from, std::move(result));
  }
  Trainer trainer(config, data);
  return train_and_write(o, events, data, trainer, resume_from, std::move(result));
}

}  // namespace tilegrad::training
