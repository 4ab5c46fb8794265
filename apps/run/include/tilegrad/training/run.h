// A whole training run as `tilegrad train` and `tilegrad.train` (Python) perform it: options resolved and checked
// before any data is loaded, the run folder checked (or cleared with overwrite), the dataset loaded, training
// with periodic checkpoints, evaluations and saves, the final checkpoint, .ply, metrics and renders. The caller
// supplies the presentation (messages, progress) and the stop request (signals, a callback). Runs on one device
// use training::Trainer, runs on several ranks (GPUs through NCCL, or simulated ranks on the CPU)
// distributed::DistributedTrainer; the rest of the run is the same.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tilegrad/training/config.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/metrics.h"
#include "tilegrad/training/outputs.h"
#include "tilegrad/training/trainer.h"

namespace tilegrad::training {

struct RunOptions {
  DatasetOptions data;
  TrainConfig config;
  std::string out;                                                       // the run folder
  std::string device = "auto", accumulation = "owned", background = "auto";  // as the command line spells them
  bool resume = false;      // continue from <out>/checkpoint.bin
  std::string resume_from;  // continue from this checkpoint ("" : see resume)
  bool overwrite = false;   // replace an earlier run in <out>
  bool save_renders = true;  // <out>/renders/<split>/*.png of the final evaluation
  std::vector<int> eval_at, save_at;  // iterations of periodic evaluations and .ply saves
  // Several ranks (docs/TRAINING.md, "Training on several devices"): gpus "N" or "all" (one NCCL rank per GPU),
  // or `ranks` simulated ranks on the CPU; "" and 0: one device. parallel: "data" or "gaussians".
  // DistributedConfig::scale_for_views is in config.
  std::string gpus;
  int ranks = 0;
  std::string parallel = "data";
  std::vector<int> gpu_devices;  // prepare_run: the GPUs of --gpus
  bool distributed() const { return !gpus.empty() || ranks > 0; }
};

// Resolves the spelled options into config and data (device, accumulation, background, ranks), then checks every
// option (InvalidArgument naming it) and the run folder (run_folder.h), all before any data is loaded.
void prepare_run(RunOptions& options);

struct RunEvents {
  std::function<void(const std::string&)> message;  // one line of information (dataset, start, evaluations, ...)
  std::function<void(const Progress&)> progress;    // every log_every iterations and at the end
  std::function<bool()> stop;                       // checked before every iteration; true: checkpoint and return
  // Called with true just before the first iteration and with false once the final checkpoint is written: the
  // stretch in which `stop` is consulted (e.g. where signals should stop training rather than the process).
  std::function<void(bool)> training;
};

struct RunResult {
  bool finished = false;      // all iterations done (else stopped: the checkpoint holds the run)
  int iteration = 0;          // completed iterations
  std::string checkpoint;     // the checkpoint written last
  std::string split;          // the views evaluated: "test", else "train"
  Evaluation evaluation;      // the final evaluation (finished runs only)
  RunSummary summary;         // likewise
};

// What loading changed (undistortion, resolution: "note: ..."), and a warning naming frames left out.
std::vector<std::string> dataset_notes(const TrainingDataset& data);

// "m:ss" or "h:mm:ss".
std::string format_duration(double seconds);

// Runs training on prepared options (prepare_run first). A stopped run has written its checkpoint and returns
// with finished = false.
RunResult run_training(const RunOptions& options, const RunEvents& events);

}  // namespace tilegrad::training
