// Files of a training run and of evaluations: cameras.json (the 3DGS viewer format), JSON-lines training log,
// metrics.json, rendered PNGs.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tilegrad/core/buffer.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/metrics.h"
#include "tilegrad/training/trainer.h"

namespace tilegrad::training {

// Text files of a run, replaced atomically (parent folders created).
void write_text_file(const std::string& path, const std::string& text);

// config.json of a run: the training configuration (config_to_json) plus the dataset options.
std::string run_config_json(const TrainConfig& config, const DatasetOptions& data);

// One JSON object per line: iteration, loss, PSNR, Gaussians, speed, learning rate, stage times.
std::string progress_json_line(const Progress& progress);
// The line of a periodic evaluation: {"iteration": N, "eval": {"split", "views", "psnr", "ssim", "l1", "seconds"}}.
std::string evaluation_json_line(int iteration, const std::string& split, const Evaluation& evaluation);

// The cameras of `views` as the 3DGS trainer writes them (id, img_name, width, height, position, rotation as the
// camera-to-world matrix in OpenCV axes, fx, fy).
void write_cameras_json(const std::string& path, const std::vector<const TrainingView*>& views);

struct RunSummary {
  int iterations = 0;
  double training_seconds = 0;  // all segments of a resumed run
  CheckpointStats checkpoints;  // their time is not in training_seconds
  std::vector<Segment> segments;
  std::size_t gaussians = 0;
  std::size_t peak_gpu_bytes = 0;  // memory::stats(Device::Cuda).peak; 0 on the CPU
  StageTimes times;
  std::string device, dataset;
  std::string distributed;  // a JSON object of a run over several devices (metrics.json "distributed"); "" : none
};

// metrics.json: the split and number of views evaluated, per-view PSNR/SSIM/L1 and their means, plus the run
// summary when given. InvalidArgument when the evaluation's split is not set.
void write_metrics_json(const std::string& path, const Evaluation& evaluation, const RunSummary* summary);

// Writes an [H, W, C] float image (any device; C = 1 or 3) as an 8-bit PNG, creating parent folders.
void write_image_png(const std::string& path, const Buffer<float>& image, int width, int height, int channels);

// A RenderSink writing each render to <folder>/<index, 5 digits>.png.
RenderSink png_sink(const std::string& folder);

// Depth [H, W] (alpha-weighted, as ForwardOutput::depth) over alpha as a grey PNG: near white, far dark, empty
// pixels black; the range is the covered pixels' 1st..99th percentile.
void write_depth_png(const std::string& path, const Buffer<float>& depth, const Buffer<float>& alpha, int width,
                     int height);

}  // namespace tilegrad::training
