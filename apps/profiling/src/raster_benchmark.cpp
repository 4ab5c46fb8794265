// The rasterizer benchmark (see raster_benchmark.h).
#include "tilegrad/profiling/raster_benchmark.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>

#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/profiling/bar_chart.h"
#include "tilegrad/profiling/report.h"
#include "tilegrad/profiling/timer.h"

namespace tilegrad::profiling {
namespace {

using raster::StageTimes;

StageTimes median_stages(const std::vector<StageTimes>& v) {
  auto med = [&](double StageTimes::*field) {
    Samples s;
    for (const auto& t : v) s.ms.push_back(t.*field);
    return s.ms.empty() ? 0.0 : s.median();
  };
  StageTimes m;
  m.project = med(&StageTimes::project);
  m.sort = med(&StageTimes::sort);
  m.blend = med(&StageTimes::blend);
  m.blend_backward = med(&StageTimes::blend_backward);
  m.reduce = med(&StageTimes::reduce);
  m.project_backward = med(&StageTimes::project_backward);
  return m;
}

// A call timed twice: without stage timing (the time a caller sees), then with it, for the stages (their events add
// host calls, and reading them waits for the device inside the timed call). `reset` runs before each timed call.
struct TimedTwice {
  double ms = 0, staged_ms = 0;     // medians
  std::vector<StageTimes> stages;   // of the staged calls after warm-up
};
TimedTwice time_twice(raster::Rasterizer& r, const RasterBenchConfig& cfg, const std::function<void()>& reset,
                      const std::function<void()>& call) {
  TimedTwice t;
  r.set_timing(false);
  t.ms = time_repeated(cfg.device, cfg.warmup, cfg.reps, reset, call).median();
  r.set_timing(true);
  t.staged_ms = time_repeated(cfg.device, cfg.warmup, cfg.reps, reset, [&] {
                  call();
                  t.stages.push_back(r.last_times());
                }).median();
  t.stages.erase(t.stages.begin(), t.stages.begin() + std::min<std::size_t>(cfg.warmup, t.stages.size()));
  return t;
}

std::vector<float> flatten(const raster::Gradients& g) {
  std::vector<float> all;
  for (const Buffer<float>* b : {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh, &g.colors}) {
    const auto v = b->to_vector();
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

// Every gradient group (digests and dumps).
std::vector<float> all_gradients(const raster::Gradients& g) {
  std::vector<float> all;
  for (const Buffer<float>* b : {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh, &g.colors, &g.mean2d,
                                 &g.mean2d_abs}) {
    const auto v = b->to_vector();
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

}  // namespace

const char* binning_name(raster::Binning binning) {
  return binning == raster::Binning::ThrustKeys ? "thrust" : "cub";
}

raster::Binning parse_binning(const std::string& name) {
  if (name == "cub") return raster::Binning::TwoPassCub;
  if (name == "thrust") return raster::Binning::ThrustKeys;
  throw InvalidArgument("unknown sort '" + name + "' (cub or thrust)");
}

std::string outputs_file(const std::string& dump_dir, const std::string& workload, const std::string& sort) {
  std::string name;
  for (char c : sort == "cub" ? workload : workload + " " + sort + " sort") {
    if (std::isalnum(static_cast<unsigned char>(c))) name += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!name.empty() && name.back() != '_') name += '_';
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return dump_dir + "/" + name + ".f32";
}

RasterBenchResult run_raster_benchmark(const std::string& workload, const raster::Gaussians& gaussians,
                                       const raster::Camera& camera, const RasterBenchConfig& cfg, std::FILE* log) {
  require_device(cfg.device);
  TG_CHECK_ARG(gaussians.device() == cfg.device, "benchmark: the Gaussians must be on the benchmark device");
  RasterBenchResult res;
  res.workload = workload;
  res.sort = binning_name(cfg.settings.binning);
  res.gaussians = gaussians.count();
  res.width = camera.width;
  res.height = camera.height;
  for (const Buffer<float>* b : {&gaussians.means, &gaussians.log_scales, &gaussians.quats, &gaussians.opacity_logits,
                                 &gaussians.sh, &gaussians.colors})
    res.parameter_bytes += b->bytes();
  const raster::GaussiansView view = gaussians.view();
  raster::Rasterizer r(cfg.device);
  const std::size_t pixels = std::size_t(camera.width) * camera.height;
  const auto dl = [&] {  // loss = sum of RGB
    const memory::StageScope stage("raster benchmark: dL/dimage");
    return Buffer<float>::from(std::vector<float>(pixels * 3, 1.0f), cfg.device);
  }();

  // Every backward of a mode runs with these settings (Owned with the configured record limit).
  auto settings_of = [&](Accumulation mode) {
    raster::BackwardSettings b{mode};
    if (mode == Accumulation::Owned) b.max_record_bytes = cfg.max_record_bytes;
    b.depth_chunk = cfg.depth_chunk;
    return b;
  };

  // Peak memory of one forward, then of one forward + Owned backward, beyond what was allocated before (the
  // parameters and the loss gradient).
  synchronize(cfg.device);
  memory::reset_peak(cfg.device);
  const std::size_t before = memory::stats(cfg.device).current;
  {
    const auto out = r.forward(view, camera, cfg.settings);
    synchronize(cfg.device);
    res.forward_peak_bytes = memory::stats(cfg.device).peak - before;
    const auto grads = r.backward(out, view, dl.view(), {}, {}, settings_of(Accumulation::Owned));
    synchronize(cfg.device);
  }
  res.peak_bytes = memory::stats(cfg.device).peak - before;

  raster::ForwardOutput out;
  const TimedTwice fwd = time_twice(
      r, cfg, [&] { out = raster::ForwardOutput(); }, [&] { out = r.forward(view, camera, cfg.settings); });
  res.forward_ms = fwd.ms;
  res.forward_staged_ms = fwd.staged_ms;
  res.forward_stages = median_stages(fwd.stages);
  for (const StageTimes& t : fwd.stages) res.sort_peak_bytes = std::max(res.sort_peak_bytes, t.sort_peak_bytes);
  res.visible = out.visible_gaussians();
  res.instances = out.instances();
  if (cfg.device == Device::Cuda)
    res.depth_chunk = raster::depth_chunk_for(settings_of(Accumulation::Owned), res.instances, cuda_multiprocessors());
  if (log)
    std::fprintf(log,
                 "  %-28s %10zu Gaussians %10zu visible %11zu instances  forward %s ms (staged %s; %s sort %s ms, "
                 "%s)%s\n",
                 workload.c_str(), res.gaussians, res.visible, res.instances, format_ms(res.forward_ms).c_str(),
                 format_ms(res.forward_staged_ms).c_str(), res.sort.c_str(), format_ms(res.forward_stages.sort).c_str(),
                 format_bytes(double(res.sort_peak_bytes)).c_str(),
                 cfg.device != Device::Cuda ? ""
                 : res.depth_chunk == 0     ? ", backward in whole tiles"
                                            : (", backward depth chunks of " + std::to_string(res.depth_chunk)).c_str());

  const raster::Gradients owned = r.backward(out, view, dl.view(), {}, {}, settings_of(Accumulation::Owned));
  const std::vector<float> reference = flatten(owned);
  {
    const std::vector<float> image = out.image.to_vector(), grads = all_gradients(owned);
    res.image_digest = digest(image.data(), image.size() * sizeof(float));
    res.owned_digest = digest(grads.data(), grads.size() * sizeof(float));
    if (log)
      std::fprintf(log, "  %-28s digests: image %s, owned gradients %s\n", workload.c_str(), res.image_digest.c_str(),
                   res.owned_digest.c_str());
    if (!cfg.dump_dir.empty()) {
      std::vector<float> both = image;
      both.insert(both.end(), grads.begin(), grads.end());
      write_file_bytes(outputs_file(cfg.dump_dir, workload, res.sort), both.data(), both.size() * sizeof(float));
    }
  }
  for (Accumulation mode : cfg.modes) {
    RasterModeResult m;
    m.mode = mode;
    raster::Gradients grads;
    const TimedTwice t = time_twice(
        r, cfg, [&] { grads = raster::Gradients(); },
        [&] { grads = r.backward(out, view, dl.view(), {}, {}, settings_of(mode)); });
    m.backward_ms = t.ms;
    m.backward_staged_ms = t.staged_ms;
    m.stages = median_stages(t.stages);
    const std::vector<float> a = flatten(grads),
                             b = flatten(r.backward(out, view, dl.view(), {}, {}, settings_of(mode)));
    m.bitwise_repeatable = a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    double dot = 0, na = 0, nr = 0, diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      dot += double(a[i]) * reference[i];
      na += double(a[i]) * a[i];
      nr += double(reference[i]) * reference[i];
      diff += (double(a[i]) - reference[i]) * (double(a[i]) - reference[i]);
    }
    m.relative_l2 = nr > 0 ? std::sqrt(diff / nr) : std::sqrt(diff);
    m.cosine = (na > 0 && nr > 0) ? dot / std::sqrt(na * nr) : 1.0;
    if (log)
      std::fprintf(log,
                   "  %-28s backward %-16s %10s ms  (staged %s: blend-bwd %s, reduce %s, project-bwd %s)  rel %.1e "
                   "cos %.7f %s\n",
                   workload.c_str(), to_string(mode), format_ms(m.backward_ms).c_str(),
                   format_ms(m.backward_staged_ms).c_str(), format_ms(m.stages.blend_backward).c_str(),
                   format_ms(m.stages.reduce).c_str(), format_ms(m.stages.project_backward).c_str(), m.relative_l2,
                   m.cosine,
                   m.bitwise_repeatable ? "repeatable" : "varies");
    res.modes.push_back(m);
  }
  return res;
}

RasterBenchResult out_of_memory_result(const std::string& workload, std::size_t gaussians,
                                       const raster::Camera& camera, const RasterBenchConfig& cfg,
                                       const OutOfMemory& error, std::FILE* log) {
  RasterBenchResult res;
  res.workload = workload;
  res.sort = binning_name(cfg.settings.binning);
  res.gaussians = gaussians;
  res.width = camera.width;
  res.height = camera.height;
  res.oom_stage = error.stage().empty() ? "an unnamed stage" : error.stage();
  res.oom_bytes = error.bytes();
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", double(error.bytes()) / double(1 << 20));
  res.error = "out of memory at " + res.oom_stage + ": " + std::to_string(error.bytes()) + " bytes (" + mib + " MiB)";
  if (log) std::fprintf(log, "  %-28s %s sort: %s\n    (%s)\n", workload.c_str(), res.sort.c_str(), res.error.c_str(),
                        error.what());
  return res;
}

nlohmann::json raster_results_to_json(const RasterBenchConfig& cfg, const std::vector<RasterBenchResult>& results) {
  nlohmann::json j;
  j["benchmark"] = "raster";
  j["run"] = run_info(cfg.device);
  j["config"] = {{"warmup", cfg.warmup},
                 {"reps", cfg.reps},
                 {"antialiased", cfg.settings.antialiased},
                 {"max_record_bytes", cfg.max_record_bytes},
                 {"depth_chunk", cfg.depth_chunk == raster::BackwardSettings::kAutoDepthChunk
                                     ? nlohmann::json("auto")
                                     : nlohmann::json(cfg.depth_chunk)}};
  for (const auto& r : results) {
    if (!r.error.empty()) {
      j["results"].push_back({{"workload", r.workload},
                              {"sort", r.sort},
                              {"gaussians", r.gaussians},
                              {"width", r.width},
                              {"height", r.height},
                              {"error", r.error},
                              {"out_of_memory", {{"stage", r.oom_stage}, {"bytes", r.oom_bytes}}}});
      continue;
    }
    nlohmann::json w = {{"workload", r.workload},       {"sort", r.sort},           {"gaussians", r.gaussians},
                        {"visible", r.visible},         {"instances", r.instances},
                        {"depth_chunk", r.depth_chunk},
                        {"width", r.width},             {"height", r.height},
                        {"forward_ms", r.forward_ms},   {"forward_staged_ms", r.forward_staged_ms},
                        {"project_ms", r.forward_stages.project},
                        {"sort_ms", r.forward_stages.sort}, {"blend_ms", r.forward_stages.blend},
                        {"sort_peak_bytes", r.sort_peak_bytes},
                        {"parameter_bytes", r.parameter_bytes}, {"peak_bytes_beyond_parameters", r.peak_bytes},
                        {"forward_peak_bytes_beyond_parameters", r.forward_peak_bytes},
                        {"image_digest", r.image_digest},       {"owned_gradients_digest", r.owned_digest}};
    for (const auto& m : r.modes)
      w["backward"].push_back({{"mode", to_string(m.mode)},
                               {"backward_ms", m.backward_ms},
                               {"backward_staged_ms", m.backward_staged_ms},
                               {"blend_backward_ms", m.stages.blend_backward},
                               {"reduce_ms", m.stages.reduce},
                               {"project_backward_ms", m.stages.project_backward},
                               {"relative_l2_vs_owned", m.relative_l2},
                               {"cosine_vs_owned", m.cosine},
                               {"bitwise_repeatable", m.bitwise_repeatable}});
    j["results"].push_back(w);
  }
  return j;
}

std::string raster_results_to_markdown(const std::vector<RasterBenchResult>& results) {
  MarkdownTable f;
  f.header = {"workload", "size", "Gaussians", "visible", "instances", "project", "sort", "sort ms", "sort peak",
              "blend", "forward ms", "forward peak", "fwd + owned bwd peak"};
  MarkdownTable b;
  b.header = {"workload", "mode", "backward ms", "blend-bwd", "reduce", "project-bwd", "atomic / mode",
              "vs owned (rel L2)", "deterministic"};
  for (const auto& r : results) {
    const std::string size = std::to_string(r.width) + "x" + std::to_string(r.height);
    if (!r.error.empty()) {
      f.rows.push_back({r.workload, size, std::to_string(r.gaussians), "-", "-", "-", r.sort, "-", "-", "-", r.error,
                        "-", "-"});
      continue;
    }
    f.rows.push_back({r.workload, size, std::to_string(r.gaussians), std::to_string(r.visible),
                      std::to_string(r.instances), format_ms(r.forward_stages.project), r.sort,
                      format_ms(r.forward_stages.sort), format_bytes(double(r.sort_peak_bytes)),
                      format_ms(r.forward_stages.blend), format_ms(r.forward_ms),
                      format_bytes(double(r.forward_peak_bytes)), format_bytes(double(r.peak_bytes))});
    double atomic = 0;
    for (const auto& m : r.modes)
      if (m.mode == Accumulation::Atomic) atomic = m.backward_ms;
    for (const auto& m : r.modes) {
      char rel[32];
      std::snprintf(rel, sizeof(rel), "%.1e", m.relative_l2);
      b.rows.push_back({r.workload + (r.sort == "cub" ? "" : " (" + r.sort + " sort)"), to_string(m.mode), format_ms(m.backward_ms), format_ms(m.stages.blend_backward),
                        format_ms(m.stages.reduce), format_ms(m.stages.project_backward),
                        atomic > 0 ? format_ratio(atomic / m.backward_ms) : "-", rel,
                        m.bitwise_repeatable ? "yes" : "no"});
    }
  }
  return "Forward (median ms)\n\n" + f.str() + "\nBackward (median ms, loss = sum of RGB)\n\n" + b.str();
}

void write_raster_chart(const std::string& path, const std::vector<RasterBenchResult>& results) {
  BarChart chart;
  chart.title = "3DGS backward per accumulation mode (median ms)";
  chart.segment_names = {"blend backward", "reduce", "projection backward"};
  for (const auto& r : results) {
    if (!r.error.empty()) continue;
    Panel p;
    p.title = r.workload + (r.sort == "cub" ? "" : " (" + r.sort + " sort)") + ": " + std::to_string(r.instances) + " instances, forward " + format_ms(r.forward_ms) + " ms";
    for (const auto& m : r.modes)
      p.bars.push_back({to_string(m.mode), {m.stages.blend_backward, m.stages.reduce, m.stages.project_backward}});
    chart.panels.push_back(p);
  }
  write_bar_chart(path, chart);
}

}  // namespace tilegrad::profiling
