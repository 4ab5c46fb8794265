// The training loop: render a train view, L1 + SSIM loss, backward, densification statistics, one fused Adam
// step, adaptive density control on schedule. On the GPU a step makes no host round trip besides the
// rasterizer's instance count; loss values stay on the device until a progress report reads them.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/densify.h"
#include "tilegrad/training/loss.h"
#include "tilegrad/training/metrics.h"
#include "tilegrad/training/model.h"

namespace tilegrad::training {

class CheckpointWriter;

// Mean milliseconds per iteration of each stage. Render/loss/backward/optimizer are sampled on one iteration in
// TrainConfig::timing_every on the GPU (where measuring synchronises) and measured on every iteration on the CPU;
// densify is the total spent in statistics, densification and opacity resets divided by the iterations.
struct StageTimes {
  double render = 0, loss = 0, backward = 0, optimizer = 0, densify = 0;
  double total() const { return render + loss + backward + optimizer + densify; }
};

struct Progress {
  int iteration = 0, iterations = 0;
  float loss = 0, psnr = 0;  // means over the iterations since the last report
  std::size_t gaussians = 0;
  double iterations_per_second = 0;  // since the last report
  double elapsed_seconds = 0;        // training time, earlier segments of a resumed run included
  double eta_seconds = 0;
  float position_lr = 0;
  int sh_degree = 0;
  DensifyCounts last_densify;  // the most recent densification (all zero before the first)
  int densify_events = 0;      // iterations since the last report that densified or reset the opacities
  StageTimes times;
  std::string distributed;  // a JSON object of a run over several devices (per-rank times, traffic); "" otherwise
};

// Checkpoints written by this trainer (and, after a resume, by the earlier segments of the run): their wall time
// is not training time.
struct CheckpointStats {
  int count = 0;
  double seconds = 0;
};

// A stretch of training between a start (initialize or resume) and the end of the last run() call.
struct Segment {
  int first_iteration = 0, last_iteration = 0;  // completed iterations at its start and its end
  double seconds = 0;
};

// The Gaussians Trainer::initialize() starts from, on the host: the dataset's points, else random points (see
// TrainConfig::init_half_size).
raster::Gaussians initial_gaussians(const TrainConfig& config, const TrainingDataset& dataset);

class Trainer {
 public:
  // The dataset must outlive the trainer; its images must be loaded on config.device. renders_views false: the
  // trainer never renders its views itself (a rank of a partitioned run, whose driver renders them in parts and
  // calls apply_step): the images may stay on the host and compute_view_gradients() is refused.
  Trainer(const TrainConfig& config, const TrainingDataset& dataset, bool renders_views = true);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Initial Gaussians: the dataset's points, else random points (see TrainConfig::init_half_size).
  void initialize();
  void initialize(raster::Gaussians gaussians);
  // Continues from a checkpoint written with the same configuration on the same dataset (fingerprint.h):
  // InvalidArgument listing every difference otherwise. Training time, stage timings and checkpoint statistics
  // continue from the checkpoint's.
  // `take` (optional) receives the checkpoint's model on the host and returns the part this trainer trains (a
  // rank's share of a model partitioned over devices).
  void resume(const std::string& checkpoint_path,
              const std::function<GaussianModel(const GaussianModel&)>& take = {});
  // Writes a checkpoint (counted in checkpoint_stats()) of this trainer's model, or of `model` when given (the
  // whole model of a run whose trainers each hold a part of it).
  void save_checkpoint(const std::string& path, const GaussianModel* model = nullptr);

  // Runs one iteration; false when all iterations are done (then nothing is run).
  bool step();

  // The phases of step(), for drivers that spread an iteration over several devices (apps/distributed):
  //   ViewStep& s = begin_view(n);  compute_view_gradients();  [combine s.gradients across devices]  apply_step();
  // step() is exactly begin_view(iteration() + 1), compute_view_gradients(), apply_step().
  struct ViewStep {
    int iteration = 0;                  // the iteration this step completes
    const TrainingView* view = nullptr;
    raster::RasterSettings settings;    // active SH degree and this view's background
    raster::Gradients gradients;        // of this view's loss (a driver may replace them by a combination)
    View<float> loss_values;            // this step's LossValues record in the loss log (device memory)
  };
  // Picks training view number `view_number` (1-based over all epochs; the plain trainer uses the iteration) and
  // its render settings for the next iteration.
  ViewStep& begin_view(std::uint64_t view_number);
  // Forward, loss and backward of the view: fills gradients and loss_values.
  void compute_view_gradients();
  struct ApplyOptions {
    // Adds the step's density statistics to the model in place of the view's own (a combination of several
    // views); called only while densifying.
    std::function<void(GaussianModel&)> statistics;
    // Global index of this model's first Gaussian (split offsets are drawn per global index), for a model that
    // is one part of a partitioned one.
    std::uint64_t first_index = 0;
  };
  struct StepEvents {
    bool densified = false, opacity_reset = false;
  };
  // Density statistics, the Adam step with the step's gradients, densification and opacity reset on schedule;
  // completes the iteration.
  StepEvents apply_step(const ApplyOptions& options);
  StepEvents apply_step() { return apply_step(ApplyOptions{}); }
  // Replaces the model between iterations (a partitioned driver moves Gaussians between devices).
  void set_model(GaussianModel model);

  struct RunHooks {
    std::function<bool()> stop;                   // checked before every iteration; true: return early
    std::function<void(const Progress&)> report;  // every log_every iterations and at the end
    std::string checkpoint_path;  // written on TrainConfig's checkpoint schedule ("" : never)
    std::function<void()> step;   // runs one iteration (default: step())
    // Writes a periodic checkpoint (default: the model copied to the host and written in the background).
    std::function<void(const std::string&)> save;
    // Called after each iteration listed in `at_iterations`, with its number (periodic evaluations and saves);
    // its time is not training time.
    std::function<void(int)> at_iteration;
    std::vector<int> at_iterations;
  };
  // Steps until done or until hooks.stop() returns true. Returns true when all iterations are done.
  bool run(const RunHooks& hooks);

  int iteration() const { return m_iteration; }
  const TrainConfig& config() const { return m_config; }
  const GaussianModel& model() const { return m_model; }
  int active_sh_degree() const;
  // Background for evaluation and renders (Auto resolved from the dataset).
  const float* background() const { return m_background; }
  raster::RasterSettings render_settings() const;
  // Means over every iteration of the run, earlier segments of a resumed run included.
  StageTimes stage_times() const;
  // Training wall time of the whole run (all segments), without checkpoint writing.
  double training_seconds() const { return m_seconds; }
  const CheckpointStats& checkpoint_stats() const { return m_checkpoints; }
  const std::vector<Segment>& segments() const { return m_segments; }

  // Metrics over views with the evaluation background and the current SH degree.
  Evaluation evaluate(const std::vector<TrainingView>& views, const RenderSink& sink = {}, std::size_t max_views = 0);

 private:
  const TrainingView& view_for(std::uint64_t view_number);
  template <class Work>
  void stage(double& total_ms, bool timed, Work&& work);
  float position_lr(int iteration) const;
  Progress progress_report(double seconds_since_report, int iterations_since_report);
  std::string state_json() const;
  void restore_state(const std::string& json_text, const std::string& path);
  void start_segment();
  // A periodic checkpoint: the model is copied to the host now and written on a background thread.
  void start_checkpoint(const std::string& path);

  TrainConfig m_config;
  const TrainingDataset& m_dataset;
  GaussianModel m_model;
  raster::Rasterizer m_rasterizer;
  ImageLoss m_loss;
  int m_iteration = 0;
  bool m_ready = false;  // initialised or resumed
  float m_background[3] = {0, 0, 0};
  Buffer<float> m_dl_dimage;  // reused every step
  Buffer<float> m_loss_log;   // [log_every, 4] loss values of the steps since the last report
  int m_logged = 0;
  int m_densify_events = 0;  // since the last report (Progress::densify_events)
  bool m_renders_views = true;
  ViewStep m_step;  // the iteration in progress (between begin_view and apply_step)
  std::vector<std::uint32_t> m_order;  // view permutation of the current epoch
  std::int64_t m_order_epoch = -1;
  DensifyCounts m_last_densify;
  // Stage timing accumulators.
  struct Timing;
  std::unique_ptr<Timing> m_timing;
  double m_seconds = 0;
  CheckpointStats m_checkpoints;
  std::vector<Segment> m_segments;
  std::string m_fingerprint;  // dataset_fingerprint(m_dataset)
  std::unique_ptr<CheckpointWriter> m_writer;
};

}  // namespace tilegrad::training
