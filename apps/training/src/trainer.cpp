// The training loop (see trainer.h): schedules, one step, progress reports, checkpoints.
#include "tilegrad/training/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>
#include <nlohmann/json.hpp>

#include "checkpoint_writer.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/profiling/timer.h"
#include "tilegrad/training/checkpoint.h"
#include "tilegrad/training/fingerprint.h"
#include "tilegrad/training/initialize.h"

namespace tilegrad::training {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
// Half size of the random-point cube of NeRF-synthetic scenes: the reference's choice for objects that fit in
// the [-1.5, 1.5] cube the synthetic cameras look at.
constexpr float kSyntheticInitHalfSize = 1.3f;
}  // namespace

struct Trainer::Timing {
  explicit Timing(Device d) : timer(d) {}
  profiling::Timer timer;
  double render = 0, loss = 0, backward = 0, optimizer = 0, stats = 0;
  int samples = 0;
  double densify_events_ms = 0;
  int iterations = 0;
};

Trainer::Trainer(const TrainConfig& config, const TrainingDataset& dataset, bool renders_views)
    : m_config(config),
      m_dataset(dataset),
      m_rasterizer(config.device),
      m_loss(config.device, config.lambda_dssim),
      m_timing(std::make_unique<Timing>(config.device)),
      m_writer(std::make_unique<CheckpointWriter>()) {
  m_config.validate();
  TG_CHECK_ARG(!dataset.train.empty(), "the dataset has no training views");
  m_renders_views = renders_views;
  for (const TrainingView& v : dataset.train)
    TG_CHECK_ARG(!v.image.empty() && (v.image.device() == config.device || !renders_views), "training view '",
                 v.name, "' has no image loaded on ", to_string(config.device));
  evaluation_background(m_config, dataset.has_alpha, m_background);
  m_loss_log = Buffer<float>::zeros(std::size_t(m_config.log_every) * kLossValueCount, config.device);
  m_fingerprint = dataset_fingerprint(dataset);
}

Trainer::~Trainer() = default;

raster::Gaussians initial_gaussians(const TrainConfig& config, const TrainingDataset& dataset) {
  InitOptions o;
  o.sh_degree = config.sh_degree;
  o.opacity = config.init_opacity;
  o.seed = config.seed;
  if (dataset.points.size() > 0) return gaussians_from_points(dataset.points, o);
  const bool synthetic = dataset.kind == io::DatasetKind::NerfSynthetic;
  const float origin[3] = {0, 0, 0};
  const float half =
      config.init_half_size > 0 ? config.init_half_size : (synthetic ? kSyntheticInitHalfSize : dataset.extent);
  const io::PointCloud points = random_points(config.init_points, synthetic ? origin : dataset.center, half, config.seed);
  return gaussians_from_points(points, o);
}

void Trainer::initialize() { initialize(initial_gaussians(m_config, m_dataset)); }

void Trainer::initialize(raster::Gaussians gaussians) {
  TG_CHECK_ARG(gaussians.sh_degree == m_config.sh_degree, "initial Gaussians store SH degree ", gaussians.sh_degree,
               " but the configuration trains degree ", m_config.sh_degree);
  m_model = GaussianModel::from_parameters(gaussians.to(m_config.device));
  m_iteration = 0;
  m_ready = true;
  m_timing = std::make_unique<Timing>(m_config.device);
  m_seconds = 0;
  m_checkpoints = {};
  m_segments.clear();
  start_segment();
}

void Trainer::start_segment() {
  Segment s;
  s.first_iteration = s.last_iteration = m_iteration;
  m_segments.push_back(s);
}

std::string Trainer::state_json() const {
  const Timing& t = *m_timing;
  nlohmann::json segments = nlohmann::json::array();
  for (const Segment& s : m_segments)
    segments.push_back({{"first_iteration", s.first_iteration},
                        {"last_iteration", s.last_iteration},
                        {"seconds", s.seconds}});
  const nlohmann::json j = {
      {"training_seconds", m_seconds},
      {"timing",
       {{"render", t.render},
        {"loss", t.loss},
        {"backward", t.backward},
        {"optimizer", t.optimizer},
        {"stats", t.stats},
        {"samples", t.samples},
        {"densify_events_ms", t.densify_events_ms},
        {"iterations", t.iterations}}},
      {"checkpoints", {{"count", m_checkpoints.count}, {"seconds", m_checkpoints.seconds}}},
      {"segments", segments}};
  return j.dump();
}

void Trainer::restore_state(const std::string& text, const std::string& path) {
  m_timing = std::make_unique<Timing>(m_config.device);
  m_seconds = 0;
  m_checkpoints = {};
  m_segments.clear();
  if (text.empty()) return;  // a checkpoint without run state: times start at zero
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    m_seconds = j.at("training_seconds").get<double>();
    const nlohmann::json& t = j.at("timing");
    Timing& tm = *m_timing;
    tm.render = t.at("render").get<double>();
    tm.loss = t.at("loss").get<double>();
    tm.backward = t.at("backward").get<double>();
    tm.optimizer = t.at("optimizer").get<double>();
    tm.stats = t.at("stats").get<double>();
    tm.samples = t.at("samples").get<int>();
    tm.densify_events_ms = t.at("densify_events_ms").get<double>();
    tm.iterations = t.at("iterations").get<int>();
    m_checkpoints.count = j.at("checkpoints").at("count").get<int>();
    m_checkpoints.seconds = j.at("checkpoints").at("seconds").get<double>();
    for (const nlohmann::json& s : j.at("segments"))
      m_segments.push_back({s.at("first_iteration").get<int>(), s.at("last_iteration").get<int>(),
                            s.at("seconds").get<double>()});
  } catch (const nlohmann::json::exception& e) {
    throw IoError(path + ": the run state in the checkpoint is not readable (" + e.what() + ")");
  }
}

void Trainer::resume(const std::string& path, const std::function<GaussianModel(const GaussianModel&)>& take) {
  Checkpoint c = load_checkpoint(path);
  std::vector<std::string> diff = config_differences(c.config_json, config_to_json(m_config));
  if (!c.data_json.empty()) {  // empty: written by save_checkpoint without a dataset (nothing to compare)
    const std::vector<std::string> data_diff = fingerprint_differences(c.data_json, m_fingerprint);
    diff.insert(diff.end(), data_diff.begin(), data_diff.end());
  }
  if (!diff.empty()) {
    std::string list;
    for (const std::string& d : diff) list += "\n  " + d;
    throw InvalidArgument(path +
                          ": the checkpoint was written with other training settings or another dataset (pass "
                          "the same options and data, or start afresh):" +
                          list);
  }
  TG_CHECK_ARG(c.model.params.sh_degree == m_config.sh_degree, path, ": checkpoint stores SH degree ",
               c.model.params.sh_degree, ", the configuration trains ", m_config.sh_degree);
  m_model = take ? take(c.model).to(m_config.device) : c.model.to(m_config.device);
  m_iteration = int(c.iteration);
  m_logged = 0;
  m_densify_events = 0;
  m_ready = true;
  restore_state(c.state_json, path);
  start_segment();
}

void Trainer::save_checkpoint(const std::string& path, const GaussianModel* model) {
  TG_CHECK_ARG(m_ready, "save_checkpoint: call initialize() or resume() first");
  const auto t0 = Clock::now();
  m_writer->wait();  // a periodic checkpoint still being written finishes first (and reports its error)
  const CheckpointStats before = m_checkpoints;
  // The state is written after the model: it counts this checkpoint and nearly all of its time.
  training::save_checkpoint(path, model ? *model : m_model, m_iteration, config_to_json(m_config), m_fingerprint, [&] {
    m_checkpoints.count = before.count + 1;
    m_checkpoints.seconds = before.seconds + seconds_since(t0);
    return state_json();
  });
  m_checkpoints.count = before.count + 1;
  m_checkpoints.seconds = before.seconds + seconds_since(t0);
}

void Trainer::start_checkpoint(const std::string& path) {
  const auto t0 = Clock::now();
  // Training waits for the previous write (if still running) and the copy to the host only.
  m_writer->start(path, m_model, m_iteration, config_to_json(m_config), m_fingerprint, state_json());
  m_checkpoints.count += 1;
  m_checkpoints.seconds += seconds_since(t0);
}

int Trainer::active_sh_degree() const { return std::min(m_config.sh_degree, m_iteration / m_config.sh_degree_every); }

raster::RasterSettings Trainer::render_settings() const {
  raster::RasterSettings s;
  for (int c = 0; c < 3; ++c) s.background[c] = m_background[c];
  s.sh_degree = active_sh_degree();
  s.antialiased = m_config.antialiased;
  return s;
}

const TrainingView& Trainer::view_for(std::uint64_t view_number) {
  // Each epoch visits every training view once, in an order drawn from (seed, epoch).
  const std::size_t n = m_dataset.train.size();
  const std::int64_t epoch = std::int64_t((view_number - 1) / n);
  if (epoch != m_order_epoch) {
    m_order.resize(n);
    for (std::size_t i = 0; i < n; ++i) m_order[i] = std::uint32_t(i);
    for (std::size_t i = n; i > 1; --i) {
      const std::uint64_t r = random_bits(m_config.seed, RandomStream::ViewOrder, (std::uint64_t(epoch) << 32) | i);
      std::swap(m_order[i - 1], m_order[r % i]);
    }
    m_order_epoch = epoch;
  }
  return m_dataset.train[m_order[std::size_t((view_number - 1) % n)]];
}

float Trainer::position_lr(int iteration) const {
  const int steps = m_config.lr.position_steps > 0 ? m_config.lr.position_steps : m_config.iterations;
  const double t = std::clamp(double(iteration) / double(steps), 0.0, 1.0);
  const double log_lr =
      (1.0 - t) * std::log(double(m_config.lr.position)) + t * std::log(double(m_config.lr.position_final));
  return float(std::exp(log_lr) * m_dataset.extent);
}

template <class Work>
void Trainer::stage(double& total_ms, bool timed, Work&& work) {
  if (timed) m_timing->timer.start();
  work();
  if (timed) total_ms += m_timing->timer.stop();
}

bool Trainer::step() {
  TG_CHECK_ARG(m_ready, "step: call initialize() or resume() first");
  if (m_iteration >= m_config.iterations) return false;
  begin_view(std::uint64_t(m_iteration) + 1);
  compute_view_gradients();
  apply_step();
  return true;
}

Trainer::ViewStep& Trainer::begin_view(std::uint64_t view_number) {
  TG_CHECK_ARG(m_ready, "begin_view: call initialize() or resume() first");
  TG_CHECK_ARG(m_iteration < m_config.iterations, "begin_view: all ", m_config.iterations, " iterations are done");
  TG_CHECK_ARG(view_number >= 1, "begin_view: view numbers start at 1");
  const int it = m_iteration + 1;
  m_step.iteration = it;
  m_step.view = &view_for(view_number);
  raster::RasterSettings& settings = m_step.settings;
  settings = render_settings();
  settings.sh_degree = std::min(m_config.sh_degree, it / m_config.sh_degree_every);
  if (m_config.background_mode == BackgroundMode::Random)
    for (int c = 0; c < 3; ++c)
      settings.background[c] = random_uniform(m_config.seed, RandomStream::Background, 3 * view_number + c);
  const std::size_t slot = std::size_t(m_logged % m_config.log_every);
  m_step.loss_values = m_loss_log.view().subview(slot * kLossValueCount, kLossValueCount);
  ++m_logged;
  m_step.gradients = {};
  return m_step;
}

void Trainer::compute_view_gradients() {
  TG_CHECK_ARG(m_step.view && m_step.iteration == m_iteration + 1, "compute_view_gradients: call begin_view first");
  TG_CHECK_ARG(m_renders_views, "compute_view_gradients: this trainer was made not to render its views");
  const Device device = m_config.device;
  const TrainingView& view = *m_step.view;
  const raster::RasterSettings& settings = m_step.settings;
  Timing& tm = *m_timing;
  const bool timed = device == Device::Cpu || m_step.iteration % m_config.timing_every == 0;

  raster::ForwardOutput fwd;
  stage(tm.render, timed, [&] { fwd = m_rasterizer.forward(m_model.params.view(), view.camera, settings); });

  const std::size_t pixels = std::size_t(view.camera.width) * view.camera.height;
  m_dl_dimage.reserve_discard(pixels * 3, device);
  const View<float> d_image(m_dl_dimage.data(), pixels * 3, device);
  stage(tm.loss, timed,
        [&] { m_loss.backward(image_pair(view, fwd.image, settings.background), d_image, m_step.loss_values); });

  stage(tm.backward, timed, [&] {
    raster::BackwardSettings b;
    b.accumulation = m_config.accumulation;
    b.check_finite = false;  // the loss is checked instead; this keeps the step free of host round trips
    m_step.gradients = m_rasterizer.backward(fwd, m_model.params.view(), d_image, {}, {}, b);
  });
}

Trainer::StepEvents Trainer::apply_step(const ApplyOptions& options) {
  TG_CHECK_ARG(m_step.view && m_step.iteration == m_iteration + 1, "apply_step: call begin_view first");
  const int it = m_step.iteration;
  const Device device = m_config.device;
  const raster::Gradients& grads = m_step.gradients;
  TG_CHECK_ARG(grads.means.size() == m_model.params.means.size(), "apply_step: gradients for ",
               grads.means.size() / 3, " Gaussians, the model has ", m_model.count());
  Timing& tm = *m_timing;
  const bool timed = device == Device::Cpu || it % m_config.timing_every == 0;

  const DensifyConfig& dc = m_config.densify;
  const bool densifying = it < dc.until;
  if (densifying)
    stage(tm.stats, timed, [&] {
      if (options.statistics) {
        options.statistics(m_model);
      } else {
        accumulate_density_stats(m_model, m_step.view->camera,
                                 density_visibility(m_step.settings, dc.opacity_aware_visibility),
                                 grads.mean2d.cview());
      }
    });

  stage(tm.optimizer, timed, [&] {
    const LearningRates& lr = m_config.lr;
    const float pos_lr = position_lr(it);
    raster::Gaussians& p = m_model.params;
    raster::Gaussians& m = m_model.adam_m;
    raster::Gaussians& v = m_model.adam_v;
    const int sh_period = 3 * raster::sh_coefficients(p.sh_degree);
    const std::vector<AdamGroup> groups = {
        {p.means.view(), grads.means.cview(), m.means.view(), v.means.view(), pos_lr, pos_lr, 1, 1},
        {p.log_scales.view(), grads.log_scales.cview(), m.log_scales.view(), v.log_scales.view(), lr.scale, lr.scale, 1,
         1},
        {p.quats.view(), grads.quats.cview(), m.quats.view(), v.quats.view(), lr.rotation, lr.rotation, 1, 1},
        {p.opacity_logits.view(), grads.opacity_logits.cview(), m.opacity_logits.view(), v.opacity_logits.view(),
         lr.opacity, lr.opacity, 1, 1},
        // SH [N, K, 3]: the first 3 floats of every Gaussian's K x 3 block are the DC band.
        {p.sh.view(), grads.sh.cview(), m.sh.view(), v.sh.view(), lr.sh_dc, lr.sh_rest, sh_period, 3},
    };
    adam_step(device, groups, ++m_model.adam_step, m_config.adam);
    p.version += 1;
  });
  if (timed) ++tm.samples;

  StepEvents events;
  events.densified = densifying && it > dc.from && it % dc.every == 0;
  events.opacity_reset = densifying && dc.opacity_reset_every > 0 && it % dc.opacity_reset_every == 0;
  if (events.densified || events.opacity_reset) {
    ++m_densify_events;
    const auto t0 = Clock::now();
    if (events.densified) {
      const bool size_pruning = dc.opacity_reset_every > 0 && it > dc.opacity_reset_every;
      DensifyRule rule;
      rule.grad_threshold = dc.grad_threshold;
      rule.clone_max_scale = dc.percent_dense * m_dataset.extent;
      rule.min_opacity = dc.min_opacity;
      rule.max_world_scale = size_pruning ? dc.max_world_size * m_dataset.extent : 0.0f;
      rule.max_screen_radius = size_pruning ? dc.max_screen_size : 0.0f;
      const memory::StageScope stage("training: densification");
      m_last_densify = densify_and_prune(m_model, rule, m_config.seed, std::uint64_t(it), options.first_index);
    }
    if (events.opacity_reset) reset_opacity(m_model, dc.reset_opacity);
    synchronize(device);
    tm.densify_events_ms += 1e3 * seconds_since(t0);
  }
  ++tm.iterations;
  m_step.view = nullptr;
  m_step.gradients = {};
  m_iteration = it;
  return events;
}

void Trainer::set_model(GaussianModel model) {
  TG_CHECK_ARG(model.params.sh_degree == m_config.sh_degree, "set_model: the model stores SH degree ",
               model.params.sh_degree, ", the configuration trains ", m_config.sh_degree);
  TG_CHECK_ARG(model.device() == m_config.device, "set_model: the model is on ",
               to_string(model.device()), ", training runs on ", to_string(m_config.device));
  m_model = std::move(model);
}

StageTimes Trainer::stage_times() const {
  const Timing& tm = *m_timing;
  StageTimes t;
  if (tm.samples > 0) {
    t.render = tm.render / tm.samples;
    t.loss = tm.loss / tm.samples;
    t.backward = tm.backward / tm.samples;
    t.optimizer = tm.optimizer / tm.samples;
    t.densify = tm.stats / tm.samples;
  }
  if (tm.iterations > 0) t.densify += tm.densify_events_ms / tm.iterations;
  return t;
}

Progress Trainer::progress_report(double seconds_since_report, int iterations_since_report) {
  Progress p;
  p.iteration = m_iteration;
  p.iterations = m_config.iterations;
  p.gaussians = m_model.count();
  p.sh_degree = active_sh_degree();
  p.position_lr = position_lr(std::max(m_iteration, 1));
  p.last_densify = m_last_densify;
  p.times = stage_times();
  const int n = std::min(m_logged, m_config.log_every);
  if (n > 0) {
    std::vector<float> log(std::size_t(n) * kLossValueCount);
    memory::copy(log.data(), Device::Cpu, m_loss_log.data(), m_loss_log.device(), log.size() * sizeof(float));
    double loss = 0, psnr = 0;
    for (int i = 0; i < n; ++i) {
      loss += log[std::size_t(i) * kLossValueCount] / n;
      psnr += psnr_from_mse(log[std::size_t(i) * kLossValueCount + 3]) / n;
    }
    p.loss = float(loss);
    p.psnr = float(psnr);
    // Diverged (a learning rate far too high, say): stop with a message rather than train on NaNs.
    if (!std::isfinite(p.loss))
      throw Error(detail::concat("training diverged: the loss is not finite at iteration ", m_iteration));
  }
  m_logged = 0;
  p.densify_events = std::exchange(m_densify_events, 0);
  p.iterations_per_second = seconds_since_report > 0 ? iterations_since_report / seconds_since_report : 0.0;
  p.elapsed_seconds = m_seconds;
  p.eta_seconds = p.iterations_per_second > 0 ? (m_config.iterations - m_iteration) / p.iterations_per_second : 0.0;
  return p;
}

bool Trainer::run(const RunHooks& hooks) {
  TG_CHECK_ARG(m_ready, "run: call initialize() or resume() first");
  auto interval_start = Clock::now();
  int interval_iterations = 0;
  double seconds_before = m_seconds;
  const auto run_start = Clock::now();
  auto last_checkpoint = run_start;
  const int first_iteration = m_iteration;
  // Training time so far: the wall time of this call less its checkpoint writing, plus earlier calls'. A call
  // that trains nothing (a finished run resumed) adds nothing.
  auto update_time = [&] {
    if (m_iteration == first_iteration) return;
    synchronize(m_config.device);
    m_seconds = seconds_before + seconds_since(run_start);
    double earlier = 0;
    for (std::size_t i = 0; i + 1 < m_segments.size(); ++i) earlier += m_segments[i].seconds;
    m_segments.back().last_iteration = m_iteration;
    m_segments.back().seconds = m_seconds - earlier;
  };
  auto report = [&] {
    update_time();
    if (hooks.report) hooks.report(progress_report(seconds_since(interval_start), interval_iterations));
    interval_start = Clock::now();
    interval_iterations = 0;
  };
  const int every = m_config.checkpoint_every;
  const double checkpoint_seconds = 60.0 * double(m_config.checkpoint_minutes);
  while (m_iteration < m_config.iterations) {
    if (hooks.stop && hooks.stop()) {
      update_time();
      m_writer->wait();
      return false;
    }
    if (hooks.step) {
      hooks.step();
    } else {
      step();
    }
    ++interval_iterations;
    if (m_iteration % m_config.log_every == 0 || m_iteration == m_config.iterations) report();
    if (hooks.at_iteration &&
        std::find(hooks.at_iterations.begin(), hooks.at_iterations.end(), m_iteration) != hooks.at_iterations.end()) {
      synchronize(m_config.device);
      const auto t0 = Clock::now();
      hooks.at_iteration(m_iteration);
      const auto spent = Clock::now() - t0;
      seconds_before -= std::chrono::duration<double>(spent).count();  // evaluations and saves are not training
      interval_start += spent;
    }
    const bool due = every > 0 && (m_iteration % every == 0 ||
                                   (checkpoint_seconds > 0 && seconds_since(last_checkpoint) >= checkpoint_seconds));
    if (!hooks.checkpoint_path.empty() && due && m_iteration < m_config.iterations) {
      update_time();
      const double written_before = m_checkpoints.seconds;
      if (hooks.save) {
        hooks.save(hooks.checkpoint_path);
      } else {
        start_checkpoint(hooks.checkpoint_path);
      }
      seconds_before -= m_checkpoints.seconds - written_before;  // checkpoints are not training time
      last_checkpoint = Clock::now();
    }
  }
  update_time();
  m_writer->wait();  // the last periodic checkpoint is complete (or its error reported) when run() returns
  return true;
}

Evaluation Trainer::evaluate(const std::vector<TrainingView>& views, const RenderSink& sink, std::size_t max_views) {
  return evaluate_views(m_rasterizer, m_loss, m_model.params.view(), views, render_settings(), sink, max_views);
}

}  // namespace tilegrad::training
