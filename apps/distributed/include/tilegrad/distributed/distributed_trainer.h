// Training over several ranks (GPUs through NCCL, or simulated ranks on the CPU) with the interface of
// training::Trainer, so a program drives either the same way. Two modes (TrainConfig::distributed.mode):
//   data       every rank holds a replica of the model and renders its own view each iteration (N views per
//              iteration); gradients and density statistics are summed exactly over the ranks, so every replica
//              takes the same step, bit for bit (checked after every densification). One rank is the plain
//              trainer.
//   gaussians  every rank holds a part of the Gaussians (a range of a spatial order) and renders a region of
//              each view with the Gaussians, from every rank, that reach it; the gradients return to their
//              owners. Memory per GPU falls with the number of ranks: a scene larger than one GPU trains.
// Progress, metrics and checkpoints come from rank 0 and describe the whole run; per-rank times and traffic are
// in report(). docs/TRAINING.md, "Training on several devices".
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tilegrad/distributed/communicator.h"
#include "tilegrad/training/trainer.h"

namespace tilegrad::distributed {

struct RankReport {
  int rank = 0;
  int gpu = -1;                 // GPU ordinal (-1: simulated rank)
  std::size_t gaussians = 0;    // held by the rank: its replica, or its part
  int samples = 0;              // iterations timed (all on the CPU, one in TrainConfig::timing_every on GPUs)
  double step_ms = 0;           // mean per timed iteration: the whole step of this rank
  double compute_ms = 0;        // render, loss, backward (and statistics of the view)
  double communication_ms = 0;  // collectives and their packing, waiting for other ranks included
  double apply_ms = 0;  // density statistics, Adam, densification (data parallel: the replica check after it;
                        // partitioned: moving Gaussians between ranks)
  double bytes_per_iteration = 0;  // payload this rank handed to collectives, per iteration
  std::size_t peak_gpu_bytes = 0;  // its GPU's memory-pool peak (0 for simulated ranks)
};

struct DistributedReport {
  training::Parallelism mode = training::Parallelism::Data;
  int ranks = 1;
  int views_per_iteration = 1;
  std::vector<RankReport> per_rank;
  // Largest communication_ms / step_ms over the ranks.
  double communication_share() const;
  std::string json() const;  // the "distributed" object of metrics.json and of the log lines
};

class DistributedTrainer {
 public:
  // One rank per communicator of `group` (config.distributed.ranks must equal its size; config.device must be the
  // group's: Cuda for NCCL, Cpu for simulated ranks). The dataset may be loaded on the host or on any GPU:
  // data-parallel GPU ranks copy its images to their own GPU; partitioned ranks and host ranks share them on the
  // host (partitioned GPU ranks upload the crop of each view they render). It must outlive the trainer.
  DistributedTrainer(const training::TrainConfig& config, const training::TrainingDataset& dataset, CommGroup group);
  ~DistributedTrainer();
  DistributedTrainer(const DistributedTrainer&) = delete;
  DistributedTrainer& operator=(const DistributedTrainer&) = delete;

  // As training::Trainer (collective: they run on every rank).
  void initialize();
  void resume(const std::string& checkpoint_path);
  void save_checkpoint(const std::string& path);
  // hooks.at_iteration may evaluate, save or read model() (it runs while the ranks wait between iterations).
  bool run(const training::Trainer::RunHooks& hooks);
  // `views` must be the dataset's train or test list.
  training::Evaluation evaluate(const std::vector<training::TrainingView>& views,
                                const training::RenderSink& sink = {}, std::size_t max_views = 0);

  int iteration() const;
  // The configuration the ranks train with (DistributedConfig::scale_for_views applied).
  const training::TrainConfig& config() const { return m_config; }
  // The whole model: rank 0's replica (data), or the parts gathered on the host (gaussians; gathered again when
  // training advanced since the last call).
  const training::GaussianModel& model();
  training::StageTimes stage_times() const;
  double training_seconds() const;
  const training::CheckpointStats& checkpoint_stats() const;
  const std::vector<training::Segment>& segments() const;

  int ranks() const;
  DistributedReport report();
  // model_hash (replicas.h) of every rank's model, by rank: all equal for data-parallel replicas.
  std::vector<std::uint64_t> rank_model_hashes();

 private:
  void each_rank(const std::function<void(int)>& task);  // on every rank's thread, host ranks sharing the cores
  bool run_ranks(const training::Trainer::RunHooks& hooks);  // run() without at_iteration
  struct Rank;
  training::TrainConfig m_config;
  const training::TrainingDataset& m_data;
  std::unique_ptr<training::TrainingDataset> m_host_data;  // partitioned ranks' shared images, when m_data's are on a GPU
  CommGroup m_group;
  std::unique_ptr<class RankThreads> m_threads;
  std::vector<std::unique_ptr<Rank>> m_ranks;
  training::GaussianModel m_gathered;
  int m_gathered_iteration = -1;
  std::uint64_t m_gathered_epoch = 0, m_epoch = 0;  // m_epoch changes whenever the model may have changed
};

// Devices for --gpus: "all" (every visible GPU) or a count N (GPUs 0..N-1); InvalidArgument naming what is
// available otherwise.
std::vector<int> gpus_from_option(const std::string& option);

}  // namespace tilegrad::distributed
