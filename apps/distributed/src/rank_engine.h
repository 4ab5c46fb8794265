// Internal: what one rank does in a distributed run (data_parallel.cpp, gaussian_parallel.cpp). Every method
// but report(), trainer() and stage_times() is collective: all ranks call it together (DistributedTrainer runs it
// on every rank's thread).
#pragma once
#include <memory>
#include <string>

#include "tilegrad/distributed/distributed_trainer.h"
#include "tilegrad/profiling/timer.h"
#include "tilegrad/training/trainer.h"

namespace tilegrad::distributed::detail {

class RankEngine {
 public:
  virtual ~RankEngine() = default;
  virtual training::Trainer& trainer() = 0;
  // Starts from `initial` (on the host; prepared once for all ranks: initial_gaussians, in spatial order for a
  // partitioned run).
  virtual void initialize(const raster::Gaussians& initial) = 0;
  virtual void resume(const std::string& path) = 0;
  virtual void step() = 0;
  // Rank 0 writes the checkpoint of the whole model at `path`.
  virtual void checkpoint(const std::string& path) = 0;
  // The whole model on rank 0 (the host for a partitioned one); an empty model elsewhere. Data-parallel ranks
  // return nothing (rank 0's replica is the whole model).
  virtual training::GaussianModel gather_model() = 0;
  // Metrics of the dataset's test (or train) views; rank 0's result describes the whole model; renders go to
  // `sink` on rank 0 (every rank is given the same sink: the others only look at whether there is one).
  virtual training::Evaluation evaluate(bool test_split, const training::RenderSink& sink, std::size_t max_views) = 0;
  virtual RankReport report() = 0;
  virtual std::size_t total_gaussians() = 0;
  // Stage times of the whole step (render, loss, backward include the exchanges of a partitioned step).
  virtual training::StageTimes stage_times() = 0;
};

std::unique_ptr<RankEngine> make_data_parallel(Communicator& comm, const training::TrainConfig& config,
                                               const training::TrainingDataset& dataset);
std::unique_ptr<RankEngine> make_gaussian_parallel(Communicator& comm, const training::TrainConfig& config,
                                                   const training::TrainingDataset& dataset);

// Sampled stage timing: on timed iterations each stage is measured (CUDA events on a GPU; a stage that queued
// collectives waits for them first), otherwise stages just run.
class StageClock {
 public:
  StageClock(Device device, Communicator& comm) : m_timer(device), m_comm(comm) {}
  void begin_iteration(bool timed) { m_timed = timed; }
  bool timed() const { return m_timed; }
  template <class F>
  void time(double& total_ms, F&& work, bool collectives = false) {
    if (!m_timed) {
      work();
      return;
    }
    m_timer.start();
    work();
    if (collectives) m_comm.synchronize();
    total_ms += m_timer.stop();
  }

 private:
  profiling::Timer m_timer;
  Communicator& m_comm;
  bool m_timed = false;
};

// Sums of stage times over the timed iterations.
struct RankTiming {
  double compute = 0, communication = 0, apply = 0;
  int samples = 0;
  int iterations = 0;
  std::uint64_t bytes_at_start = 0;
};

// The report fields every engine fills the same way.
RankReport make_report(const Communicator& comm, const RankTiming& t, std::size_t gaussians);

}  // namespace tilegrad::distributed::detail
