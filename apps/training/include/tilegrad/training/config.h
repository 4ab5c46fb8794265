// Everything that shapes a training run, with the published 3DGS defaults; serialised to the run's config file
// and into checkpoints (a resumed run must use the same settings).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/device.h"
#include "tilegrad/training/adam.h"

namespace tilegrad::training {

struct LearningRates {
  // Positions decay exponentially from `position` to `position_final` over `position_steps` iterations (0: the
  // whole run); both are multiplied by the scene extent, as in 3DGS.
  float position = 1.6e-4f;
  float position_final = 1.6e-6f;
  int position_steps = 0;
  float sh_dc = 2.5e-3f;
  float sh_rest = 2.5e-3f / 20.0f;
  float opacity = 0.05f;
  float scale = 5e-3f;
  float rotation = 1e-3f;
};

struct DensifyConfig {
  int from = 500;  // densify at iterations from < it < until, every `every`
  int until = 15000;
  int every = 100;
  float grad_threshold = 2e-4f;  // on the mean view-space position gradient in NDC units
  float percent_dense = 0.01f;   // clone below, split above this fraction of the scene extent
  float min_opacity = 0.005f;
  int opacity_reset_every = 3000;  // 0: never
  float reset_opacity = 0.01f;
  // Size pruning starts after the first opacity reset: world size in units of the scene extent (0: off), and
  // footprint radius in pixels (0: off; the reference's screen-size test never fires, see docs/TRAINING.md).
  float max_world_size = 0.1f;
  float max_screen_size = 0.0f;
  // Which views count for a Gaussian's mean gradient: those where its splat reaches a pixel at alpha >= 1/255
  // (true, the rasterizer's own culling), or those where its 3-sigma footprint touches the image whatever its
  // opacity (false, as the original 3DGS and gsplat count; faint views then lower the mean).
  bool opacity_aware_visibility = true;
};

enum class BackgroundMode { Auto, Color, Random };

// Training over several devices (apps/distributed, docs/TRAINING.md). ranks > 1: Data keeps a replica of the
// model per rank, each rendering its own view every iteration; Gaussians gives each rank a part of the Gaussians
// and a region of every view. Part of the results (recorded in checkpoints and config.json when ranks > 1).
enum class Parallelism { Data, Gaussians };
struct DistributedConfig {
  int ranks = 1;
  Parallelism mode = Parallelism::Data;
  // Data parallel, where an iteration trains `ranks` views: false keeps every hyperparameter; true multiplies
  // the learning rates by sqrt(ranks) (the rule Grendel-GS proposes for batches of views) and raises Adam's
  // betas to the power ranks (their moments then average over as many views as with one rank).
  bool scale_for_views = false;
};
const char* to_string(Parallelism mode);
Parallelism parse_parallelism(const std::string& name);  // "data" or "gaussians"

struct TrainConfig {
  int iterations = 30000;
  std::uint64_t seed = 0;
  Device device = Device::Cpu;
  Accumulation accumulation = Accumulation::Owned;
  int sh_degree = 3;           // bands stored and trained
  int sh_degree_every = 1000;  // the active degree grows by one every this many iterations
  float lambda_dssim = 0.2f;
  bool antialiased = false;
  LearningRates lr;
  AdamSettings adam;
  DensifyConfig densify;
  // Initialisation without SfM points: random points in a cube (half size 0: 1.3 for NeRF-synthetic scenes as
  // in the reference, else the camera extent around the cameras' centre).
  std::size_t init_points = 100000;
  float init_half_size = 0.0f;
  float init_opacity = 0.1f;
  // Background: Auto is white for images with transparency and black otherwise; Random trains on a random
  // colour per step (targets composited on it) and evaluates on the Auto/Color one.
  BackgroundMode background_mode = BackgroundMode::Auto;
  float background[3] = {0, 0, 0};  // Color mode
  DistributedConfig distributed;
  // Bookkeeping (not part of the optimisation).
  int log_every = 100;
  // Periodic checkpoints (Trainer::run with a checkpoint path): every checkpoint_every iterations or every
  // checkpoint_minutes of wall time since the last one, whichever comes first. checkpoint_every 0: none (only
  // at the end and on interruption); checkpoint_minutes 0: by iterations only.
  int checkpoint_every = 5000;
  float checkpoint_minutes = 10.0f;
  int timing_every = 50;  // GPU stage timing samples one iteration in this many (it synchronises)

  // One readable message per field out of range ("adam.eps must be > 0, got 0"), named as in config_to_json;
  // empty when the configuration is valid.
  std::vector<std::string> problems() const;
  // Throws InvalidArgument listing every problem.
  void validate() const;
};

// Command-line forms: "auto" (CUDA when usable, else the CPU), "cpu" or "cuda".
Device device_from_option(const std::string& name);
// "auto", "white", "black", "random" or "r,g,b" with components in [0, 1]; sets mode and colour of config.
void set_background(TrainConfig& config, const std::string& text);

// The fixed background of evaluation and renders: the Color mode's colour, else white when the images have
// alpha (synthetic scenes) and black otherwise.
void evaluation_background(const TrainConfig& config, bool images_have_alpha, float rgb[3]);

// JSON text of the configuration (keys are the field names, nested objects for lr, adam, densify).
std::string config_to_json(const TrainConfig& config);
// Keys whose values differ between two configuration texts, ignoring bookkeeping and the iteration count
// (a resumed run may train longer); "key: old -> new" each.
std::vector<std::string> config_differences(const std::string& saved_json, const std::string& current_json);

}  // namespace tilegrad::training
