// Data-parallel ranks: a full replica each; iteration t of rank r trains view number (t - 1) N + r + 1 of the
// trainer's epoch order (one rank: view t, the plain trainer's). The view's gradients, its density statistics
// (NDC gradient norm and view count summed, footprint radius maximised) and its loss values are combined over
// the ranks with the exact sum (exact_combine.h), so every rank applies the same step; after each densification
// the replicas' hashes are compared. One rank skips the combination: it is the plain trainer's step.
#include "kernels.h"
#include "rank_engine.h"
#include "tilegrad/core/error.h"
#include "tilegrad/distributed/exact_combine.h"
#include "tilegrad/distributed/replicas.h"
#include "tilegrad/training/densify.h"

namespace tilegrad::distributed::detail {

namespace {

using training::GaussianModel;
using training::Trainer;

class DataParallelRank final : public RankEngine {
 public:
  DataParallelRank(Communicator& comm, const training::TrainConfig& config, const training::TrainingDataset& data)
      : m_comm(comm),
        m_config(config),
        m_data(data),
        m_trainer(config, data),
        m_workspace(config.device),
        m_clock(config.device, comm) {}

  Trainer& trainer() override { return m_trainer; }

  void initialize(const raster::Gaussians& initial) override {
    m_trainer.initialize(initial.to(Device::Cpu));
    m_timing = {};
    m_timing.bytes_at_start = m_comm.traffic().bytes;
  }

  void resume(const std::string& path) override {
    // One rank at a time: each holds the checkpoint on the host only while it loads.
    for (int r = 0; r < m_comm.size(); ++r) {
      if (r == m_comm.rank()) m_trainer.resume(path);
      m_comm.barrier();
    }
    m_timing = {};
    m_timing.bytes_at_start = m_comm.traffic().bytes;
  }

  void step() override {
    const int ranks = m_comm.size();
    const int it = m_trainer.iteration() + 1;
    m_clock.begin_iteration(m_config.device == Device::Cpu || it % m_config.timing_every == 0);
    Trainer::ViewStep& s = m_trainer.begin_view(std::uint64_t(it - 1) * std::uint64_t(ranks) +
                                                std::uint64_t(m_comm.rank()) + 1);
    m_clock.time(m_timing.compute, [&] { m_trainer.compute_view_gradients(); });
    Trainer::StepEvents events;
    if (ranks == 1) {
      m_clock.time(m_timing.apply, [&] { events = m_trainer.apply_step(); });
    } else {
      const bool densifying = it < m_config.densify.until;
      m_clock.time(m_timing.compute, [&] {
        if (densifying) view_statistics(s);
      });
      m_clock.time(m_timing.communication, [&] { combine(s, densifying); }, true);
      Trainer::ApplyOptions options;
      options.statistics = [&](GaussianModel& model) { add_statistics(model); };
      m_clock.time(m_timing.apply, [&] {
        events = m_trainer.apply_step(options);
        if (events.densified) verify_replicas(m_comm, m_trainer.model(), it);
      });
    }
    if (m_clock.timed()) ++m_timing.samples;
    ++m_timing.iterations;
  }

  void checkpoint(const std::string& path) override {
    if (m_comm.rank() == 0) m_trainer.save_checkpoint(path);
  }

  GaussianModel gather_model() override { return {}; }

  training::Evaluation evaluate(bool test_split, const training::RenderSink& sink, std::size_t max_views) override {
    if (m_comm.rank() != 0) return {};
    return m_trainer.evaluate(test_split ? m_data.test : m_data.train, sink, max_views);
  }

  RankReport report() override { return make_report(m_comm, m_timing, m_trainer.model().count()); }
  std::size_t total_gaussians() override { return m_trainer.model().count(); }
  training::StageTimes stage_times() override { return m_trainer.stage_times(); }

 private:
  // This rank's view: per Gaussian the NDC gradient norm, 1 if rendered, and the footprint radius.
  void view_statistics(const Trainer::ViewStep& s) {
    const GaussianModel& model = m_trainer.model();
    const std::size_t n = model.count();
    const Device device = m_config.device;
    m_norm.reserve_discard(n, device);
    m_views.reserve_discard(n, device);
    m_radius.reserve_discard(n, device);
    const raster::Gaussians& p = model.params;
    const raster::RasterSettings visibility =
        training::density_visibility(s.settings, m_config.densify.opacity_aware_visibility);
    ViewStatsArgs a{};
    a.n = n;
    a.g = {p.means.data(), p.log_scales.data(), p.quats.data(), p.opacity_logits.data()};
    a.mean2d_grad = s.gradients.mean2d.data();
    a.cam = raster::make_projection_camera(s.view->camera);
    a.blur = s.settings.blur;
    a.extent_sigmas = s.settings.thresholds.extent_sigmas;
    a.min_alpha = visibility.thresholds.min_alpha;
    a.antialiased = s.settings.antialiased;
    a.norm = m_norm.data();
    a.count = m_views.data();
    a.radius = m_radius.data();
    view_stats(device, a);
  }

  // Every rank's gradients, statistics and loss values become their exact sums (the loss values: means).
  void combine(Trainer::ViewStep& s, bool densifying) {
    raster::Gradients& g = s.gradients;
    const std::size_t n = m_trainer.model().count();
    std::vector<ExactSegment> segments = {{g.means.view()},          {g.log_scales.view()}, {g.quats.view()},
                                          {g.opacity_logits.view()}, {g.sh.view()},         {g.colors.view()}};
    if (densifying) {
      segments.push_back({View<float>(m_norm.data(), n, m_config.device)});
      segments.push_back({View<float>(m_views.data(), n, m_config.device)});
    }
    segments.push_back({s.loss_values, 1.0f / float(m_comm.size())});
    exact_all_reduce(m_comm, segments, m_workspace);
    if (densifying) m_comm.all_reduce(m_radius.data(), n, DataType::F32, ReduceOp::Max);
  }

  void add_statistics(GaussianModel& model) {
    AddStatsArgs a{};
    a.n = model.count();
    a.norm = m_norm.data();
    a.count = m_views.data();
    a.radius = m_radius.data();
    a.grad_accum = model.grad_accum.data();
    a.view_count = model.view_count.data();
    a.max_radius = model.max_radius.data();
    add_stats(m_config.device, a);
  }

  Communicator& m_comm;
  training::TrainConfig m_config;
  const training::TrainingDataset& m_data;
  Trainer m_trainer;
  Workspace m_workspace;
  StageClock m_clock;
  RankTiming m_timing;
  Buffer<float> m_norm, m_views, m_radius;
};

}  // namespace

std::unique_ptr<RankEngine> make_data_parallel(Communicator& comm, const training::TrainConfig& config,
                                               const training::TrainingDataset& dataset) {
  return std::make_unique<DataParallelRank>(comm, config, dataset);
}

RankReport make_report(const Communicator& comm, const RankTiming& t, std::size_t gaussians) {
  RankReport r;
  r.rank = comm.rank();
  r.gpu = comm.gpu();
  r.gaussians = gaussians;
  r.samples = t.samples;
  if (t.samples > 0) {
    r.compute_ms = t.compute / t.samples;
    r.communication_ms = t.communication / t.samples;
    r.apply_ms = t.apply / t.samples;
    r.step_ms = r.compute_ms + r.communication_ms + r.apply_ms;
  }
  if (t.iterations > 0) r.bytes_per_iteration = double(comm.traffic().bytes - t.bytes_at_start) / t.iterations;
  r.peak_gpu_bytes = comm.gpu() >= 0 ? gpu_pool_peak_bytes(comm.gpu()) : 0;
  return r;
}

}  // namespace tilegrad::distributed::detail
