// Gaussian-partitioned ranks (docs/TRAINING.md, "Gaussian-partitioned training"). Rank r owns the range
// [begin[r], begin[r + 1]) of a global order of the Gaussians (spatial at the start; densification keeps children
// next to their parents and the ranges are rebalanced after each densification). Every rank trains the same view
// per iteration (the plain trainer's), split into one rectangle of tiles per rank:
//   1. plan: each rank projects its Gaussians (the rasterizer's own footprint test, 1 pixel wider) and adds their
//      tile rectangles to a difference array; one integer all-reduce gives the instances per tile, from which
//      every rank cuts the same regions (split_regions); a Gaussian goes to each rank whose region, grown by one
//      tile (the SSIM window's reach), it touches;
//   2. exchange: the row counts (host all-gather), then the parameters (all_to_all_v), in owner order;
//   3. render the grown region with a crop camera, the loss on the owned pixels only (LossWindow), backward;
//   4. return: the gradients (and projected-mean gradients) go back to their owners (all_to_all_v), which add
//      them in rank order (a fixed order: reproducible for a given number of ranks);
//   5. the owner's density statistics (full-view footprint test, NDC norm of the summed projected-mean gradient),
//      Adam, densification with global indices (Trainer::apply_step), rebalancing.
// With one rank every step is the plain trainer's, bit for bit: the Gaussians sent are a superset of those the
// full view renders, in the same order, so render, loss and gradients are the same.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "kernels.h"
#include "model_fields.h"
#include "rank_engine.h"
#include "tilegrad/core/error.h"
#include "tilegrad/distributed/exact_combine.h"
#include "tilegrad/distributed/partition.h"
#include "tilegrad/distributed/rebalance.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::distributed::detail {

namespace {

using training::GaussianModel;
using training::Trainer;

// Tiles of halo around a rank's region: the SSIM window (11 x 11) reads 5 pixels beyond a counted pixel.
constexpr int kHaloTiles = 1;
// Pixels by which a Gaussian's footprint box is widened when deciding where to send it, so that the rounding of
// a crop camera's projection cannot make the rasterizer draw a Gaussian its rank did not receive.
constexpr float kSendMargin = 1.0f;

// The view's work split: regions, this rank's rendered rectangle, who receives which of this rank's Gaussians.
struct ViewPlan {
  std::vector<raster::TileRect> regions;  // owned tiles per rank
  PixelRect rendered, owned;              // this rank's, in the view's pixels
  std::vector<std::uint32_t> starts;      // this rank's send list: rows for rank d are [starts[d], starts[d + 1])
  std::vector<std::uint64_t> counts;      // [source * ranks + destination] rows of the parameter exchange
  ExchangePlan forward;                   // parameters out, gradients back through transposed(counts)
};

class GaussianParallelRank final : public RankEngine {
 public:
  GaussianParallelRank(Communicator& comm, const training::TrainConfig& config, const training::TrainingDataset& data)
      : m_comm(comm),
        m_config(config),
        m_data(data),
        m_trainer(config, data, false),
        m_raster(config.device),
        m_loss(config.device, config.lambda_dssim),
        m_workspace(config.device),
        m_clock(config.device, comm) {
    TG_CHECK_ARG(comm.size() <= kMaxRanks, "Gaussian-partitioned training supports at most ", kMaxRanks,
                 " ranks, got ", comm.size());
  }

  Trainer& trainer() override { return m_trainer; }

  void initialize(const raster::Gaussians& initial) override {
    // `initial` is in spatial order: this rank keeps its range.
    m_begin = balanced_ranges(initial.count(), m_comm.size());
    const std::size_t first = m_begin[std::size_t(m_comm.rank())];
    const std::size_t count = m_begin[std::size_t(m_comm.rank()) + 1] - first;
    raster::Gaussians part = raster::Gaussians::allocate(count, initial.sh_degree, Device::Cpu);
    const Fields src = param_fields(initial), dst = param_fields(part);
    for (int k = 0; k < src.count; ++k)
      std::copy_n(src.data[k] + first * std::size_t(src.width[k]), count * std::size_t(src.width[k]), dst.data[k]);
    m_trainer.initialize(std::move(part));
    reset_timing();
  }

  void resume(const std::string& path) override {
    // One rank at a time: each holds the checkpoint on the host only while it takes its range.
    for (int r = 0; r < m_comm.size(); ++r) {
      if (r == m_comm.rank())
        m_trainer.resume(path, [&](const GaussianModel& whole) {
          m_begin = balanced_ranges(whole.count(), m_comm.size());
          const std::size_t first = m_begin[std::size_t(r)];
          return slice(whole, first, m_begin[std::size_t(r) + 1] - first);
        });
      m_comm.barrier();
    }
    reset_timing();
  }

  void step() override {
    const int it = m_trainer.iteration() + 1;
    m_clock.begin_iteration(m_config.device == Device::Cpu || it % m_config.timing_every == 0);
    // Each stage's time goes to its own sum and to compute or communication.
    auto stage = [&](double& sum, bool communication, auto&& work) {
      double ms = 0;
      m_clock.time(ms, work, communication);
      sum += ms;
      (communication ? m_timing.communication : m_timing.compute) += ms;
    };
    Trainer::ViewStep& s = m_trainer.begin_view(std::uint64_t(it));
    const raster::Camera& camera = s.view->camera;
    ViewPlan plan;
    raster::Gaussians local;
    stage(m_stages.out, true, [&] {
      plan = plan_view(camera, s.settings);
      local = exchange_gaussians(plan);
    });

    const std::size_t received = local.count();
    raster::Gradients local_grads;
    Buffer<float> values = Buffer<float>::zeros(training::kLossValueCount, m_config.device);
    if (plan.rendered.empty()) {
      local_grads = zero_gradients(received, m_config.sh_degree, m_config.device);
    } else {
      const raster::Camera crop = raster::crop_camera(camera, plan.rendered.x0, plan.rendered.y0,
                                                      plan.rendered.width(), plan.rendered.height());
      raster::ForwardOutput fwd;
      stage(m_stages.render, false, [&] { fwd = m_raster.forward(local.view(), crop, s.settings); });
      const std::size_t elements = std::size_t(crop.width) * crop.height * 3;
      m_dl_dimage.reserve_discard(elements, m_config.device);
      const View<float> dl(m_dl_dimage.data(), elements, m_config.device);
      stage(m_stages.loss, false, [&] {
        m_loss.backward(crop_pair(*s.view, plan, fwd.image, s.settings.background), dl, values.view());
      });
      stage(m_stages.backward, false, [&] {
        raster::BackwardSettings b;
        b.accumulation = m_config.accumulation;
        b.check_finite = false;  // the loss is checked at every progress report
        local_grads = m_raster.backward(fwd, local.view(), dl, {}, {}, b);
      });
    }

    stage(m_stages.back, true, [&] {
      s.gradients = return_gradients(plan, local_grads, received);
      exact_all_reduce(m_comm, {{values.view()}}, m_workspace);
      memory::copy(s.loss_values.data(), m_config.device, values.data(), m_config.device,
                   training::kLossValueCount * sizeof(float));
    });

    m_clock.time(m_timing.apply, [&] {
      Trainer::ApplyOptions options;
      options.first_index = m_begin[std::size_t(m_comm.rank())];
      const Trainer::StepEvents events = m_trainer.apply_step(options);
      if (events.densified) rebalance();
    });
    if (m_clock.timed()) ++m_timing.samples;
    ++m_timing.iterations;
  }

  void checkpoint(const std::string& path) override {
    GaussianModel whole = gather_model();
    if (m_comm.rank() == 0) m_trainer.save_checkpoint(path, &whole);
  }

  GaussianModel gather_model() override {
    const GaussianModel host = m_trainer.model().to(Device::Cpu);
    const Fields f = model_fields(host);
    const std::size_t n = host.count();
    std::vector<float> records(n * std::size_t(f.record));
    PackArgs a{n, f, nullptr, 0, records.data()};
    pack(Device::Cpu, a);
    const std::vector<std::vector<char>> parts =
        m_comm.host_gather(records.data(), records.size() * sizeof(float), 0);
    if (m_comm.rank() != 0) return {};
    std::size_t total = 0;
    for (const auto& p : parts) total += p.size() / sizeof(float) / std::size_t(f.record);
    GaussianModel whole = empty_model(total, host.params.sh_degree, Device::Cpu);
    whole.adam_step = host.adam_step;
    whole.params.version = host.params.version;
    const Fields out = model_fields(whole);
    std::size_t first = 0;
    for (const auto& p : parts) {
      const std::size_t rows = p.size() / sizeof(float) / std::size_t(f.record);
      UnpackArgs u{rows, out, reinterpret_cast<const float*>(p.data()), nullptr, first, false};
      unpack(Device::Cpu, u);
      first += rows;
    }
    return whole;
  }

  training::Evaluation evaluate(bool test_split, const training::RenderSink& sink, std::size_t max_views) override {
    const std::vector<training::TrainingView>& views = test_split ? m_data.test : m_data.train;
    const raster::RasterSettings settings = m_trainer.render_settings();
    training::Evaluation e;
    double busy = 0;
    const std::size_t stride = max_views > 0 ? std::max<std::size_t>(1, (views.size() + max_views - 1) / max_views) : 1;
    const std::size_t count = (views.size() + stride - 1) / stride;
    for (std::size_t i = 0; i < views.size(); i += stride) {
      const training::TrainingView& v = views[i];
      TG_CHECK_ARG(!v.image.empty(), "evaluate: the image of view '", v.name, "' is not loaded");
      const auto t0 = std::chrono::steady_clock::now();
      const ViewPlan plan = plan_view(v.camera, settings);
      const raster::Gaussians local = exchange_gaussians(plan);
      training::LossValues mine;
      raster::ForwardOutput fwd;
      if (!plan.rendered.empty()) {
        const raster::Camera crop = raster::crop_camera(v.camera, plan.rendered.x0, plan.rendered.y0,
                                                        plan.rendered.width(), plan.rendered.height());
        fwd = m_raster.forward(local.view(), crop, settings);
        mine = m_loss.evaluate(crop_pair(v, plan, fwd.image, settings.background));
      }
      const std::vector<training::LossValues> all = m_comm.host_all_gather(mine);
      training::LossValues sum{};
      for (const training::LossValues& x : all) {  // rank order
        sum.l1 += x.l1;
        sum.ssim += x.ssim;
        sum.mse += x.mse;
      }
      busy += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      e.views.push_back({v.name, training::psnr_from_mse(sum.mse), sum.ssim, sum.l1});
      e.psnr += e.views.back().psnr / double(count);
      e.ssim += sum.ssim / double(count);
      e.l1 += sum.l1 / double(count);
      if (sink) {
        raster::ForwardOutput whole = assemble(v, plan, fwd);
        if (m_comm.rank() == 0) sink(i, v, whole);
      }
    }
    e.seconds = busy;
    return e;
  }

  RankReport report() override { return make_report(m_comm, m_timing, m_trainer.model().count()); }
  std::size_t total_gaussians() override { return m_begin.empty() ? 0 : m_begin.back(); }
  // The trainer's optimizer and densify times; render includes sending the Gaussians out (plan and exchange),
  // backward includes returning the gradients.
  training::StageTimes stage_times() override {
    training::StageTimes t = m_trainer.stage_times();
    if (m_timing.samples > 0) {
      const double n = m_timing.samples;
      t.render = (m_stages.out + m_stages.render) / n;
      t.loss = m_stages.loss / n;
      t.backward = (m_stages.backward + m_stages.back) / n;
    }
    return t;
  }

 private:
  void reset_timing() {
    m_timing = {};
    m_stages = {};
    m_timing.bytes_at_start = m_comm.traffic().bytes;
  }

  ViewPlan plan_view(const raster::Camera& camera, const raster::RasterSettings& settings) {
    const int ranks = m_comm.size(), me = m_comm.rank();
    const Device device = m_config.device;
    const raster::TileGrid grid = raster::make_tile_grid(camera.width, camera.height);
    const raster::Gaussians& p = m_trainer.model().params;
    const std::size_t n = p.count();
    ViewPlan plan;

    // Tile rectangles of this rank's Gaussians and their instances per tile.
    const std::size_t diff_size = std::size_t(grid.tiles_x + 1) * std::size_t(grid.tiles_y + 1);
    m_rects.reserve_discard(4 * std::max<std::size_t>(n, 1), device);
    m_diff.reserve_discard(diff_size, device);
    memory::fill_zero(m_diff.data(), device, diff_size * sizeof(int));
    RectArgs r{};
    r.n = n;
    r.g = {p.means.data(), p.log_scales.data(), p.quats.data(), p.opacity_logits.data()};
    r.cam = raster::make_projection_camera(camera);
    r.blur = settings.blur;
    r.extent_sigmas = settings.thresholds.extent_sigmas;
    r.min_alpha = settings.thresholds.min_alpha;
    r.margin = kSendMargin;
    r.antialiased = settings.antialiased;
    r.rects = m_rects.data();
    r.diff = m_diff.data();
    r.tiles_x = grid.tiles_x;
    rects(device, r);
    m_comm.all_reduce(m_diff.data(), diff_size, DataType::I32, ReduceOp::Sum);
    std::vector<int> diff(diff_size);
    memory::copy(diff.data(), Device::Cpu, m_diff.data(), device, diff_size * sizeof(int));
    std::vector<std::int64_t> work = tile_instances(diff, grid.tiles_x, grid.tiles_y);
    for (std::int64_t& w : work) w += kTileBaseWork;
    plan.regions = split_regions(work, grid.tiles_x, grid.tiles_y, ranks);
    plan.owned = pixel_rect(plan.regions[std::size_t(me)], camera.width, camera.height);
    plan.rendered = pixel_rect(grow_region(plan.regions[std::size_t(me)], kHaloTiles, grid.tiles_x, grid.tiles_y),
                               camera.width, camera.height);

    // Who needs which of this rank's Gaussians.
    std::vector<int> grown(4 * std::size_t(ranks));
    for (int d = 0; d < ranks; ++d) {
      const raster::TileRect g = grow_region(plan.regions[std::size_t(d)], kHaloTiles, grid.tiles_x, grid.tiles_y);
      grown[4 * std::size_t(d)] = g.x0;
      grown[4 * std::size_t(d) + 1] = g.y0;
      grown[4 * std::size_t(d) + 2] = g.x1;
      grown[4 * std::size_t(d) + 3] = g.y1;
    }
    m_regions.reserve_discard(grown.size(), device);
    memory::copy(m_regions.data(), device, grown.data(), Device::Cpu, grown.size() * sizeof(int));
    const std::size_t flags = n * std::size_t(ranks);
    m_flags.reserve_discard(flags + 1, device);
    m_positions.reserve_discard(flags + 1, device);
    memory::fill_zero(m_flags.data() + flags, device, sizeof(std::uint32_t));
    select(device, SelectArgs{n, ranks, m_rects.data(), m_regions.data(), m_flags.data()});
    plan.starts = scan_flags(device, m_flags.data(), m_positions.data(), n, ranks);
    const std::size_t send_rows = plan.starts.back();
    m_source.reserve_discard(std::max<std::size_t>(send_rows, 1), device);
    compact(device, CompactArgs{flags, n, m_flags.data(), m_positions.data(), m_source.data()});

    // Everyone's row counts.
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(ranks));
    for (int d = 0; d < ranks; ++d) mine[std::size_t(d)] = plan.starts[std::size_t(d) + 1] - plan.starts[std::size_t(d)];
    plan.counts.resize(std::size_t(ranks) * std::size_t(ranks));
    m_comm.host_all_gather(mine.data(), plan.counts.data(), mine.size() * sizeof(std::uint64_t));
    plan.forward = plan_exchange(plan.counts, ranks, me, std::size_t(param_record()) * sizeof(float));
    return plan;
  }

  int param_record() const { return 11 + 3 * raster::sh_coefficients(m_config.sh_degree); }

  // The Gaussians of every rank that reach this rank's rendered rectangle, in owner order (the global order).
  raster::Gaussians exchange_gaussians(const ViewPlan& plan) {
    const Device device = m_config.device;
    const raster::Gaussians& p = m_trainer.model().params;
    const int record = param_record();
    const std::size_t send_rows = plan.forward.send_total, recv_rows = plan.forward.recv_total;
    m_send.reserve_discard(std::max<std::size_t>(send_rows, 1) * std::size_t(record), device);
    pack(device, PackArgs{send_rows, param_fields(p), m_source.data(), 0, m_send.data()});
    m_recv.reserve_discard(std::max<std::size_t>(recv_rows, 1) * std::size_t(record), device);
    const ExchangePlan& x = plan.forward;
    m_comm.all_to_all_v(m_send.data(), x.send_bytes, x.send_offsets, m_recv.data(), x.recv_bytes, x.recv_offsets);
    raster::Gaussians local = raster::Gaussians::allocate(recv_rows, m_config.sh_degree, device);
    local.version = p.version;
    unpack(device, UnpackArgs{recv_rows, param_fields(local), m_recv.data(), nullptr, 0, false});
    return local;
  }

  // The target pixels (and valid-pixel mask) of the rendered rectangle, paired with its render; the loss counts
  // the owned (valid) pixels, its means over the whole view's.
  training::ImagePair crop_pair(const training::TrainingView& v, const ViewPlan& plan, const Buffer<float>& image,
                                const float background[3]) {
    const PixelRect& r = plan.rendered;
    training::ImagePair pair;
    pair.width = r.width();
    pair.height = r.height();
    pair.image = image.view();
    pair.target = crop_rect(v.image, v.camera.width, 4, r, m_target, m_host_target);
    for (int c = 0; c < 3; ++c) pair.background[c] = background[c];
    std::size_t counted = std::size_t(v.camera.width) * std::size_t(v.camera.height);
    if (!v.valid.empty()) {
      pair.valid = crop_rect(v.valid, v.camera.width, 1, r, m_valid, m_host_valid);
      counted = v.valid_pixels;
    }
    pair.window = {plan.owned.x0 - r.x0, plan.owned.y0 - r.y0, plan.owned.x1 - r.x0, plan.owned.y1 - r.y0, counted};
    return pair;
  }

  // The rectangle r of a [H, src_width, channels] image into `out` on this rank's device; an image on another
  // device (the host copy every rank shares) is cropped there (into `host`) and the crop uploaded.
  View<const std::uint8_t> crop_rect(const Buffer<std::uint8_t>& src, int src_width, int channels, const PixelRect& r,
                                     Buffer<std::uint8_t>& out, std::vector<std::uint8_t>& host) {
    const Device device = m_config.device;
    CropArgs a{src.data(), src_width, channels, r.x0, r.y0, r.width(), r.height(), nullptr};
    const std::size_t bytes = a.bytes();
    out.reserve_discard(bytes, device);
    if (src.device() == device) {
      a.dst = out.data();
      crop(device, a);
    } else {
      host.resize(bytes);
      a.dst = host.data();
      crop(Device::Cpu, a);
      memory::copy(out.data(), device, host.data(), Device::Cpu, bytes);
    }
    return View<const std::uint8_t>(out.data(), bytes, device);
  }

  // Sends the received Gaussians' gradients back; the owner adds them, sender by sender in rank order.
  raster::Gradients return_gradients(const ViewPlan& plan, raster::Gradients& local, std::size_t received) {
    const Device device = m_config.device;
    const int ranks = m_comm.size(), me = m_comm.rank();
    const int record = param_record() + 2;
    m_back.reserve_discard(std::max<std::size_t>(received, 1) * std::size_t(record), device);
    pack(device, PackArgs{received, gradient_fields(local, m_config.sh_degree), nullptr, 0, m_back.data()});
    const ExchangePlan back =
        plan_exchange(transposed(plan.counts, ranks), ranks, me, std::size_t(record) * sizeof(float));
    const std::size_t rows = back.recv_total;
    m_returned.reserve_discard(std::max<std::size_t>(rows, 1) * std::size_t(record), device);
    m_comm.all_to_all_v(m_back.data(), back.send_bytes, back.send_offsets, m_returned.data(), back.recv_bytes,
                        back.recv_offsets);
    raster::Gradients own = zero_gradients(m_trainer.model().count(), m_config.sh_degree, device);
    const Fields f = gradient_fields(own, m_config.sh_degree);
    for (int d = 0; d < ranks; ++d) {
      const std::size_t first = plan.starts[std::size_t(d)], count = plan.starts[std::size_t(d) + 1] - first;
      if (count == 0) continue;
      unpack(device, UnpackArgs{count, f, m_returned.data() + first * std::size_t(record), m_source.data() + first, 0,
                                true});
    }
    return own;
  }

  // After a densification the parts may differ in size: equal ranges of the global order again (rebalance.h).
  void rebalance() {
    const int ranks = m_comm.size();
    const std::vector<std::uint64_t> sizes = m_comm.host_all_gather(std::uint64_t(m_trainer.model().count()));
    std::vector<std::size_t> old_begin(std::size_t(ranks) + 1, 0);
    for (int r = 0; r < ranks; ++r) old_begin[std::size_t(r) + 1] = old_begin[std::size_t(r)] + sizes[std::size_t(r)];
    const std::vector<std::size_t> new_begin = balanced_ranges(old_begin.back(), ranks);
    m_begin = new_begin;
    if (old_begin != new_begin) m_trainer.set_model(rebalanced_part(m_comm, m_trainer.model(), old_begin, new_begin));
  }

  // The whole view's render from the parts: every rank's owned pixels, gathered on rank 0 (host memory).
  raster::ForwardOutput assemble(const training::TrainingView& v, const ViewPlan& plan,
                                 const raster::ForwardOutput& fwd) {
    const PixelRect& o = plan.owned;
    const PixelRect& r = plan.rendered;
    std::vector<float> mine;  // x0 y0 x1 y1 then RGB rows then alpha rows of the owned pixels
    if (!o.empty()) {
      const std::vector<float> image = fwd.image.to_vector(), alpha = fwd.alpha.to_vector();
      mine = {float(o.x0), float(o.y0), float(o.x1), float(o.y1)};
      for (int y = o.y0; y < o.y1; ++y)
        for (int x = o.x0; x < o.x1; ++x)
          for (int c = 0; c < 3; ++c)
            mine.push_back(image[(std::size_t(y - r.y0) * r.width() + std::size_t(x - r.x0)) * 3 + std::size_t(c)]);
      for (int y = o.y0; y < o.y1; ++y)
        for (int x = o.x0; x < o.x1; ++x)
          mine.push_back(alpha[std::size_t(y - r.y0) * r.width() + std::size_t(x - r.x0)]);
    }
    const auto parts = m_comm.host_gather(mine.data(), mine.size() * sizeof(float), 0);
    raster::ForwardOutput out;
    if (m_comm.rank() != 0) return out;
    const int w = v.camera.width, h = v.camera.height;
    std::vector<float> image(std::size_t(w) * h * 3, 0.0f), alpha(std::size_t(w) * h, 0.0f);
    for (const auto& part : parts) {
      if (part.empty()) continue;
      const float* q = reinterpret_cast<const float*>(part.data());
      const int x0 = int(q[0]), y0 = int(q[1]), x1 = int(q[2]), y1 = int(q[3]);
      q += 4;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
          for (int c = 0; c < 3; ++c) image[(std::size_t(y) * w + std::size_t(x)) * 3 + std::size_t(c)] = *q++;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) alpha[std::size_t(y) * w + std::size_t(x)] = *q++;
    }
    out.image = Buffer<float>::from(image, Device::Cpu);
    out.alpha = Buffer<float>::from(alpha, Device::Cpu);
    return out;
  }

  Communicator& m_comm;
  training::TrainConfig m_config;
  const training::TrainingDataset& m_data;
  Trainer m_trainer;
  raster::Rasterizer m_raster;
  training::ImageLoss m_loss;
  Workspace m_workspace;
  StageClock m_clock;
  RankTiming m_timing;
  struct {
    double out = 0, render = 0, loss = 0, backward = 0, back = 0;  // ms summed over the timed iterations
  } m_stages;
  std::vector<std::size_t> m_begin;  // global ranges of the ranks
  Buffer<int> m_rects, m_diff, m_regions;
  Buffer<std::uint32_t> m_flags, m_positions, m_source;
  Buffer<float> m_send, m_recv, m_back, m_returned, m_dl_dimage;
  Buffer<std::uint8_t> m_target, m_valid;  // the rendered rectangle's target pixels and valid-pixel mask
  std::vector<std::uint8_t> m_host_target, m_host_valid;
};

}  // namespace

std::unique_ptr<RankEngine> make_gaussian_parallel(Communicator& comm, const training::TrainConfig& config,
                                                   const training::TrainingDataset& dataset) {
  return std::make_unique<GaussianParallelRank>(comm, config, dataset);
}

}  // namespace tilegrad::distributed::detail
