// `tilegrad profile pathtrace`: forward and backward times of the path tracer per accumulation strategy
// over image sizes, samples per pixel and numbers of spheres (the grid:N contention scene); checks that the
// strategies agree and that the deterministic ones repeat bit for bit; names the fastest per case.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cmd_profile_common.h"
#include "commands.h"
#include "tilegrad/pathtracer/renderer.h"
#include "tilegrad/pathtracer/scene_io.h"
#include "tilegrad/profiling/timer.h"

namespace tilegrad::cli {
namespace {

struct PathtraceProfileArgs : ProfileOptions {
  int width = 0, height = 0;
  std::vector<int> spp;
  std::vector<std::size_t> spheres;
  std::vector<std::string> strategies;
  std::string integrator = "primary";
  bool dormant_lights = false;
};

struct StrategyResult {
  Accumulation requested = Accumulation::Atomic;
  pathtracer::BackwardStats stats;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  double max_error = 0;  // vs the deterministic reference, relative to the largest gradient entry
  bool repeatable = false;
};

struct CaseResult {
  std::size_t spheres = 0;  // grid spheres (the scene has one light more)
  int spp = 1;
  double forward_ms = 0;
  std::vector<StrategyResult> strategies;
  const StrategyResult* best() const {
    const StrategyResult* b = nullptr;
    for (const auto& s : strategies)
      if (!b || s.median_ms < b->median_ms) b = &s;
    return b;
  }
};

// A smooth, non-zero adjoint (timing never runs on zeros).
std::vector<float> adjoint_image(int w, int h) {
  std::vector<float> a(static_cast<std::size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        a[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            1e-6f * (0.3f + std::sin(0.01f * x + c) * std::cos(0.013f * y - c));
  return a;
}

double error_vs(const std::vector<float>& g, const std::vector<float>& ref) {
  double largest = 0, worst = 0;
  for (float x : ref) largest = std::max(largest, double(std::fabs(x)));
  for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::fabs(double(g[i]) - ref[i]));
  if (!std::isfinite(worst)) return 1e30;
  return largest > 0 ? worst / largest : worst;
}

CaseResult run_case(Device d, const PathtraceProfileArgs& a, const std::vector<Accumulation>& strategies,
                    std::size_t n, int spp, int w, int h, std::FILE* log) {
  const pathtracer::Scene scene = pathtracer::builtin_scene("grid:" + std::to_string(n), w, h);
  pathtracer::RenderSettings rs;
  rs.integrator = pathtracer::parse_integrator(a.integrator);
  rs.spp = spp;
  pathtracer::Renderer renderer(d);
  renderer.set_scene(scene);
  Buffer<float> image(static_cast<std::size_t>(w) * h * 3, d);
  const auto adjoint = Buffer<float>::from(adjoint_image(w, h), d);
  Buffer<float> grad(scene.num_params(), d);
  CaseResult res;
  res.spheres = n;
  res.spp = spp;
  res.forward_ms = profiling::time_repeated(d, a.warmup, a.reps, {}, [&] { renderer.render(rs, image.view()); }).median();
  // The deterministic SortReduce result is the reference every strategy is compared with.
  pathtracer::GradientSettings gs;
  gs.dormant_lights = a.dormant_lights;
  gs.strategy = Accumulation::SortReduce;
  renderer.backward(rs, gs, adjoint.cview(), grad.view());
  const std::vector<float> ref = grad.to_vector();
  for (Accumulation s : strategies) {
    StrategyResult r;
    r.requested = s;
    gs.strategy = s;
    r.stats = renderer.backward(rs, gs, adjoint.cview(), grad.view());
    const std::vector<float> first = grad.to_vector();
    renderer.backward(rs, gs, adjoint.cview(), grad.view());
    r.repeatable = grad.to_vector() == first;
    r.max_error = error_vs(first, ref);
    const profiling::Samples t = profiling::time_repeated(
        d, a.warmup, a.reps, {}, [&] { renderer.backward(rs, gs, adjoint.cview(), grad.view()); });
    r.median_ms = t.median();
    r.p10_ms = t.percentile(0.1);
    r.p90_ms = t.percentile(0.9);
    res.strategies.push_back(r);
    if (log) {
      std::fprintf(log, "  spheres %6zu  spp %2d  %-16s bwd %10s ms (fwd %s ms)  err %.1e  %s%s\n", n, spp,
                   to_string(s), profiling::format_ms(r.median_ms).c_str(),
                   profiling::format_ms(res.forward_ms).c_str(), r.max_error, r.repeatable ? "repeatable" : "varies",
                   r.stats.strategy != s ? " (ran as sort-reduce)" : "");
      std::fflush(log);
    }
  }
  return res;
}

nlohmann::json to_json(Device d, const PathtraceProfileArgs& a, int w, int h, const std::vector<CaseResult>& cases) {
  nlohmann::json j;
  j["benchmark"] = "pathtrace";
  j["run"] = profiling::run_info(d);
  j["config"] = {{"width", w}, {"height", h}, {"integrator", a.integrator}, {"scene", "grid:N + 1 light"},
                 {"dormant_lights", a.dormant_lights},
                 {"warmup", a.warmup}, {"reps", a.reps}};
  for (const CaseResult& c : cases) {
    nlohmann::json cj = {{"spheres", c.spheres}, {"spp", c.spp}, {"forward_ms", c.forward_ms}};
    const StrategyResult* best = c.best();
    cj["best"] = best ? to_string(best->requested) : "";
    cj["best_backward_over_forward"] = best ? best->median_ms / c.forward_ms : 0.0;
    for (const StrategyResult& s : c.strategies)
      cj["strategies"].push_back({{"strategy", to_string(s.requested)},
                                  {"ran_as", to_string(s.stats.strategy)},
                                  {"backward_ms", s.median_ms},
                                  {"p10_ms", s.p10_ms},
                                  {"p90_ms", s.p90_ms},
                                  {"backward_over_forward", s.median_ms / c.forward_ms},
                                  {"max_error", s.max_error},
                                  {"bitwise_repeatable", s.repeatable},
                                  {"pixel_samples", s.stats.pixel_samples},
                                  {"contribution_slots", s.stats.contributions},
                                  {"edge_samples", s.stats.edge_samples},
                                  {"record_bytes", s.stats.record_bytes},
                                  {"layout_bytes", s.stats.layout_bytes},
                                  {"workspace_bytes", s.stats.workspace_bytes},
                                  {"record_chunks", s.stats.record_chunks}});
    j["results"].push_back(cj);
  }
  return j;
}

std::string to_markdown(const std::vector<Accumulation>& strategies, const std::vector<CaseResult>& cases) {
  profiling::MarkdownTable t;
  t.header = {"spheres", "spp", "forward ms"};
  for (Accumulation s : strategies) t.header.push_back(std::string(to_string(s)) + " ms");
  t.header.insert(t.header.end(), {"best", "best bwd/fwd", "atomic / best", "records (sort)", "partials (owned)",
                                   "max error"});
  for (const CaseResult& c : cases) {
    std::vector<std::string> row = {std::to_string(c.spheres), std::to_string(c.spp), profiling::format_ms(c.forward_ms)};
    double atomic = 0, worst = 0, sort_bytes = 0, owned_bytes = 0;
    for (const StrategyResult& s : c.strategies) {
      row.push_back(profiling::format_ms(s.median_ms));
      if (s.requested == Accumulation::Atomic) atomic = s.median_ms;
      if (s.requested == Accumulation::SortReduce) sort_bytes = double(s.stats.record_bytes + s.stats.workspace_bytes);
      if (s.requested == Accumulation::Owned)
        owned_bytes = double(s.stats.record_bytes + s.stats.layout_bytes + s.stats.workspace_bytes);
      worst = std::max(worst, s.max_error);
    }
    const StrategyResult* best = c.best();
    row.push_back(best ? to_string(best->requested) : "-");
    row.push_back(best ? profiling::format_ratio(best->median_ms / c.forward_ms) : "-");
    row.push_back(best && atomic > 0 ? profiling::format_ratio(atomic / best->median_ms) : "-");
    row.push_back(sort_bytes > 0 ? profiling::format_bytes(sort_bytes) : "-");
    row.push_back(owned_bytes > 0 ? profiling::format_bytes(owned_bytes) : "-");
    char err[32];
    std::snprintf(err, sizeof(err), "%.1e", worst);
    row.push_back(err);
    t.rows.push_back(row);
  }
  return t.str();
}

void run_pathtrace_profile(const PathtraceProfileArgs& a) {
  const Device d = a.parsed_device();
  const bool gpu = d == Device::Cuda;
  // The CPU reference is far slower: smaller defaults there.
  const int w = a.width > 0 ? a.width : (gpu ? 1920 : 320), h = a.height > 0 ? a.height : (gpu ? 1080 : 180);
  const std::vector<int> spps = !a.spp.empty() ? a.spp : std::vector<int>{1, 16};
  const std::vector<std::size_t> counts =
      !a.spheres.empty() ? a.spheres
                         : (gpu ? std::vector<std::size_t>{1, 16, 256, 4096, 65536} : std::vector<std::size_t>{1, 16, 256, 4096});
  std::vector<Accumulation> strategies(kAllAccumulations.begin(), kAllAccumulations.end());
  if (!a.strategies.empty()) {
    strategies.clear();
    for (const auto& s : a.strategies) strategies.push_back(parse_accumulation(s));
  }
  std::FILE* log = a.log();
  std::fprintf(log,
               "path tracer backward on %s: %dx%d, %s, grid:N spheres + 1 light, dormant lights %s, median of %d after "
               "%d warm-up\n",
               to_string(d), w, h, a.integrator.c_str(), a.dormant_lights ? "on" : "off", a.reps, a.warmup);
  std::vector<CaseResult> cases;
  for (int spp : spps)
    for (std::size_t n : counts) cases.push_back(run_case(d, a, strategies, n, spp, w, h, log));
  write_report(a, "pathtrace", to_json(d, a, w, h, cases), to_markdown(strategies, cases));
}

void add_pathtrace_workload(CLI::App& profile) {
  auto a = std::make_shared<PathtraceProfileArgs>();
  auto* cmd = profile.add_subcommand(
      "pathtrace", "Path tracer: forward and backward per strategy on the grid:N scene (N spheres + 1 light)");
  a->warmup = 2;  // a case's timing takes longer than the other workloads'
  a->reps = 10;
  add_profile_options(cmd, *a, "pathtrace.json and pathtrace.md");
  cmd->add_option("--width", a->width, "Image width (default 1920 on CUDA, 320 on CPU)")->check(checks::positive());
  cmd->add_option("--height", a->height, "Image height (default 1080 on CUDA, 180 on CPU)")->check(checks::positive());
  cmd->add_option("--spp", a->spp, "Samples per pixel (default 1 16)")->check(checks::positive());
  cmd->add_option("--spheres", a->spheres, "Numbers of grid spheres (default 1 16 256 4096 65536; CPU: up to 4096)");
  cmd->add_option("--strategies", a->strategies, "Strategies (default all): atomic warp-aggregated sort-reduce owned");
  cmd->add_option("--integrator", a->integrator, "primary, direct or path")
      ->check(CLI::IsMember({"primary", "direct", "path"}))
      ->capture_default_str();
  cmd->add_flag("--dormant-lights", a->dormant_lights,
                "Sample the grid spheres (zero emission) as dormant lights in the backward, as GradientSettings does "
                "by default (off here: the benchmark measures geometry gradients; with it every tile lists every "
                "sphere, and Owned runs as sort-reduce beyond 64)");
  cmd->callback([a] { run_pathtrace_profile(*a); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(pathtrace, add_pathtrace_workload);

}  // namespace tilegrad::cli
