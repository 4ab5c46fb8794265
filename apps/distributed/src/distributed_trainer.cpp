// DistributedTrainer: the ranks' engines on their threads (rank_threads.h); in run(), rank 0 trains through
// training::Trainer::run (reports, periodic checkpoints, stop requests) and tells the other ranks, before each
// collective piece of work, what comes next (a command broadcast in host memory).
#include "tilegrad/distributed/distributed_trainer.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "rank_engine.h"
#include "tilegrad/core/error.h"
#include "tilegrad/distributed/partition.h"
#include "tilegrad/distributed/rank_threads.h"
#include "tilegrad/distributed/replicas.h"

namespace tilegrad::distributed {

using training::GaussianModel;
using training::TrainingDataset;
using training::TrainingView;

namespace {

enum class Command : int { Step, Checkpoint, Report, Stop };

// The configuration every rank trains with: DistributedConfig::scale_for_views applied.
training::TrainConfig rank_config(training::TrainConfig c) {
  if (!c.distributed.scale_for_views || c.distributed.ranks == 1) return c;
  const int n = c.distributed.ranks;
  const float lr = std::sqrt(float(n));
  for (float* x : {&c.lr.position, &c.lr.position_final, &c.lr.sh_dc, &c.lr.sh_rest, &c.lr.opacity, &c.lr.scale,
                   &c.lr.rotation})
    *x *= lr;
  c.adam.beta1 = float(std::pow(double(c.adam.beta1), n));
  c.adam.beta2 = float(std::pow(double(c.adam.beta2), n));
  return c;
}

// Simulated ranks share this machine's cores: while a rank works, its OpenMP loops use cores / ranks threads.
class CoreShare {
 public:
  CoreShare(bool host, int ranks) {
#ifdef _OPENMP
    if (host && ranks > 1) {
      m_saved = omp_get_max_threads();
      omp_set_num_threads(std::max(1, m_saved / ranks));
    }
#else
    (void)host, (void)ranks;
#endif
  }
  ~CoreShare() {
#ifdef _OPENMP
    if (m_saved > 0) omp_set_num_threads(m_saved);
#endif
  }
  CoreShare(const CoreShare&) = delete;
  CoreShare& operator=(const CoreShare&) = delete;

 private:
  int m_saved = 0;
};

}  // namespace

struct DistributedTrainer::Rank {
  std::unique_ptr<TrainingDataset> copy;  // the images on this rank's GPU (null: the caller's dataset is shared)
  std::unique_ptr<detail::RankEngine> engine;
};

double DistributedReport::communication_share() const {
  double share = 0;
  for (const RankReport& r : per_rank)
    if (r.step_ms > 0) share = std::max(share, r.communication_ms / r.step_ms);
  return share;
}

std::string DistributedReport::json() const {
  nlohmann::json ranks_json = nlohmann::json::array();
  double bytes = 0;
  for (const RankReport& r : per_rank) {
    bytes += r.bytes_per_iteration;
    ranks_json.push_back({{"rank", r.rank},
                          {"gpu", r.gpu},
                          {"gaussians", r.gaussians},
                          {"timed_iterations", r.samples},
                          {"step_ms", r.step_ms},
                          {"compute_ms", r.compute_ms},
                          {"communication_ms", r.communication_ms},
                          {"apply_ms", r.apply_ms},
                          {"bytes_per_iteration", r.bytes_per_iteration},
                          {"peak_gpu_bytes", r.peak_gpu_bytes}});
  }
  const nlohmann::json j = {{"mode", training::to_string(mode)},
                            {"ranks", ranks},
                            {"views_per_iteration", views_per_iteration},
                            {"communication_share", communication_share()},
                            {"bytes_per_iteration", bytes},
                            {"per_rank", ranks_json}};
  return j.dump();
}

DistributedTrainer::DistributedTrainer(const training::TrainConfig& config, const TrainingDataset& dataset,
                                       CommGroup group)
    : m_config(rank_config(config)), m_data(dataset), m_group(std::move(group)) {
  config.validate();
  const int n = int(m_group.size());
  TG_CHECK_ARG(n >= 1, "distributed training needs at least one rank");
  TG_CHECK_ARG(m_config.distributed.ranks == n, "the configuration trains on ", m_config.distributed.ranks,
               " ranks, the group has ", n);
  TG_CHECK_ARG(m_group[0]->device() == m_config.device, "training on ", to_string(m_config.device),
               " needs ", m_config.device == Device::Cuda ? "GPU (NCCL)" : "host (simulated)", " ranks, the group's are ",
               to_string(m_group[0]->device()));
  TG_CHECK_ARG(!dataset.train.empty(), "the dataset has no training views");
  m_threads = std::make_unique<RankThreads>(m_group);
  m_ranks.resize(std::size_t(n));
  // Data-parallel GPU ranks render whole views: each holds the images on its GPU. Partitioned ranks upload the
  // crop of each view they render: they share one copy of the images on the host.
  const bool partitioned = m_config.distributed.mode == training::Parallelism::Gaussians;
  const bool images_on_host = m_data.train.front().image.device() == Device::Cpu;
  if (partitioned && !images_on_host) m_host_data = std::make_unique<TrainingDataset>(copy_dataset(m_data, Device::Cpu));
  const TrainingDataset& shared = m_host_data ? *m_host_data : m_data;
  each_rank([&](int r) {
    auto rank = std::make_unique<Rank>();
    const TrainingDataset* data = &shared;
    if (m_config.device == Device::Cuda && !partitioned) {
      rank->copy = std::make_unique<TrainingDataset>(copy_dataset(m_data, Device::Cuda));
      data = rank->copy.get();
    }
    Communicator& comm = m_threads->comm(r);
    rank->engine = m_config.distributed.mode == training::Parallelism::Data
                       ? detail::make_data_parallel(comm, m_config, *data)
                       : detail::make_gaussian_parallel(comm, m_config, *data);
    m_ranks[std::size_t(r)] = std::move(rank);
  });
}

DistributedTrainer::~DistributedTrainer() {
  if (m_threads) {
    // Each rank's buffers are freed on the thread bound to its GPU.
    try {
      m_threads->run([&](int r) { m_ranks[std::size_t(r)].reset(); });
    } catch (...) {
    }
    m_threads.reset();
  }
}

int DistributedTrainer::ranks() const { return int(m_ranks.size()); }

void DistributedTrainer::each_rank(const std::function<void(int)>& task) {
  m_threads->run([&](int r) {
    CoreShare cores(m_config.device == Device::Cpu, int(m_group.size()));
    task(r);
  });
}

void DistributedTrainer::initialize() {
  // Once for all ranks (a large scene's initial points take much host memory and time).
  raster::Gaussians initial = training::initial_gaussians(m_config, m_data);
  if (m_config.distributed.mode == training::Parallelism::Gaussians) initial = spatially_ordered(initial);
  each_rank([&](int r) { m_ranks[std::size_t(r)]->engine->initialize(initial); });
  ++m_epoch;
}

void DistributedTrainer::resume(const std::string& path) {
  each_rank([&](int r) { m_ranks[std::size_t(r)]->engine->resume(path); });
  ++m_epoch;
}

void DistributedTrainer::save_checkpoint(const std::string& path) {
  each_rank([&](int r) { m_ranks[std::size_t(r)]->engine->checkpoint(path); });
}

namespace {
std::vector<RankReport> collect_reports(Communicator& comm, detail::RankEngine& engine) {
  return comm.host_all_gather(engine.report());
}
}  // namespace

bool DistributedTrainer::run(const training::Trainer::RunHooks& hooks) {
  if (!hooks.at_iteration || hooks.at_iterations.empty()) return run_ranks(hooks);
  // Evaluations and saves need every rank (they render, or gather the parts): training stops after each listed
  // iteration, the hook runs here with the ranks idle, and training goes on. Time between the runs is not
  // training time, as with the plain trainer.
  std::vector<int> stops;
  for (const int it : hooks.at_iterations)
    if (it > iteration()) stops.push_back(it);
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  training::Trainer::RunHooks h = hooks;
  h.at_iteration = nullptr;
  h.at_iterations.clear();
  for (const int target : stops) {
    // Read on rank 0's thread, which runs rank 0's trainer.
    h.stop = [&] { return (hooks.stop && hooks.stop()) || iteration() >= target; };
    const bool finished = run_ranks(h);
    if (iteration() < target) return finished;  // stopped by the caller
    hooks.at_iteration(target);
  }
  h.stop = hooks.stop;
  return run_ranks(h);
}

bool DistributedTrainer::run_ranks(const training::Trainer::RunHooks& hooks) {
  bool finished = false;
  const training::Parallelism mode = m_config.distributed.mode;
  const int views = mode == training::Parallelism::Data ? ranks() : 1;
  each_rank([&](int r) {
    detail::RankEngine& engine = *m_ranks[std::size_t(r)]->engine;
    Communicator& comm = m_threads->comm(r);
    auto command = [&](Command c) {
      int value = int(c);
      comm.host_broadcast(&value, sizeof(value), 0);
      return Command(value);
    };
    if (r != 0) {
      for (;;) {
        switch (command(Command::Stop)) {  // the value is rank 0's
          case Command::Step:
            engine.step();
            break;
          case Command::Checkpoint:
            engine.checkpoint("");
            break;
          case Command::Report:
            collect_reports(comm, engine);
            break;
          case Command::Stop:
            return;
        }
      }
    }
    training::Trainer::RunHooks h = hooks;
    h.step = [&] {
      command(Command::Step);
      engine.step();
    };
    h.save = [&](const std::string& path) {
      command(Command::Checkpoint);
      engine.checkpoint(path);
    };
    h.report = [&](const training::Progress& progress) {
      command(Command::Report);
      DistributedReport report;
      report.mode = mode;
      report.ranks = comm.size();
      report.views_per_iteration = views;
      report.per_rank = collect_reports(comm, engine);
      training::Progress p = progress;
      p.gaussians = engine.total_gaussians();
      p.times = engine.stage_times();
      p.distributed = report.json();
      if (hooks.report) hooks.report(p);
    };
    // A failure here reaches RankThreads, which aborts the group: the other ranks' waits end.
    finished = engine.trainer().run(h);
    command(Command::Stop);
  });
  ++m_epoch;
  return finished;
}

training::Evaluation DistributedTrainer::evaluate(const std::vector<TrainingView>& views,
                                                  const training::RenderSink& sink, std::size_t max_views) {
  const bool test = &views == &m_data.test;
  TG_CHECK_ARG(test || &views == &m_data.train,
               "DistributedTrainer::evaluate: pass the dataset's train or test views (every rank holds its own copy)");
  training::Evaluation result;
  each_rank([&](int r) {
    training::Evaluation e = m_ranks[std::size_t(r)]->engine->evaluate(test, sink, max_views);
    if (r == 0) result = std::move(e);
  });
  return result;
}

int DistributedTrainer::iteration() const { return m_ranks[0]->engine->trainer().iteration(); }

const GaussianModel& DistributedTrainer::model() {
  if (m_config.distributed.mode == training::Parallelism::Data) return m_ranks[0]->engine->trainer().model();
  if (m_gathered_epoch != m_epoch || m_gathered_iteration != iteration()) {
    each_rank([&](int r) {
      GaussianModel m = m_ranks[std::size_t(r)]->engine->gather_model();
      if (r == 0) m_gathered = std::move(m);
    });
    m_gathered_epoch = m_epoch;
    m_gathered_iteration = iteration();
  }
  return m_gathered;
}

training::StageTimes DistributedTrainer::stage_times() const { return m_ranks[0]->engine->stage_times(); }
double DistributedTrainer::training_seconds() const { return m_ranks[0]->engine->trainer().training_seconds(); }
const training::CheckpointStats& DistributedTrainer::checkpoint_stats() const {
  return m_ranks[0]->engine->trainer().checkpoint_stats();
}
const std::vector<training::Segment>& DistributedTrainer::segments() const {
  return m_ranks[0]->engine->trainer().segments();
}

DistributedReport DistributedTrainer::report() {
  DistributedReport report;
  report.mode = m_config.distributed.mode;
  report.ranks = ranks();
  report.views_per_iteration = report.mode == training::Parallelism::Data ? ranks() : 1;
  each_rank([&](int r) {
    std::vector<RankReport> all = collect_reports(m_threads->comm(r), *m_ranks[std::size_t(r)]->engine);
    if (r == 0) report.per_rank = std::move(all);
  });
  return report;
}

std::vector<std::uint64_t> DistributedTrainer::rank_model_hashes() {
  std::vector<std::uint64_t> hashes(m_ranks.size());
  each_rank([&](int r) { hashes[std::size_t(r)] = model_hash(m_ranks[std::size_t(r)]->engine->trainer().model()); });
  return hashes;
}

std::vector<int> gpus_from_option(const std::string& option) {
  const int visible = visible_gpus();
  int count = 0;
  if (option == "all") {
    TG_REQUIRE(visible > 0, Unsupported, "--gpus all: no CUDA device is visible");
    count = visible;
  } else {
    std::size_t used = 0;
    try {
      count = std::stoi(option, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TG_CHECK_ARG(used == option.size() && count >= 1, "--gpus '", option, "': expected a positive count or 'all'");
    TG_REQUIRE(count <= visible, Unsupported, "--gpus ", count, ": only ", visible, " CUDA device(s) are visible");
  }
  std::vector<int> devices(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) devices[std::size_t(i)] = i;
  return devices;
}

}  // namespace tilegrad::distributed
