// `tilegrad profile`: timing and agreement reports of the accumulation strategies on each workload.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cmd_profile_common.h"
#include "commands.h"
#include "tilegrad/profiling/accumulation_sweep.h"

namespace tilegrad::cli {
namespace {

struct AccumulationArgs : ProfileOptions {
  std::size_t count = 0;
  std::vector<std::size_t> keys;
  std::vector<std::string> patterns = {"random", "coherent"};
  std::vector<int> widths = {1, 9};
  std::vector<std::string> strategies;
};

void run_accumulation(const AccumulationArgs& a) {
  profiling::SweepConfig cfg;
  cfg.device = a.parsed_device();
  // The CPU reference is far slower: default to 2^20 contributions there, 2^24 on a GPU.
  cfg.count = a.count ? a.count : (cfg.device == Device::Cuda ? std::size_t(1) << 24 : std::size_t(1) << 20);
  if (!a.keys.empty()) cfg.keys = a.keys;
  cfg.patterns.clear();
  for (const auto& p : a.patterns) cfg.patterns.push_back(profiling::parse_key_pattern(p));
  cfg.widths = a.widths;
  if (!a.strategies.empty()) {
    cfg.strategies.clear();
    for (const auto& s : a.strategies) cfg.strategies.push_back(parse_accumulation(s));
  }
  cfg.warmup = a.warmup;
  cfg.reps = a.reps;
  std::fprintf(a.log(), "accumulation sweep on %s: %zu contributions per case, median of %d runs after %d warm-up\n",
               to_string(cfg.device), cfg.count, cfg.reps, cfg.warmup);
  const auto results = profiling::run_accumulation_sweep(cfg, a.log());
  const auto json = profiling::sweep_to_json(cfg, results);
  if (write_report(a, "accumulation", json, profiling::sweep_to_markdown(cfg, results)))
    profiling::write_sweep_chart(a.out + "/accumulation.png", results);
}

void add_accumulation_workload(CLI::App& profile) {
  auto args = std::make_shared<AccumulationArgs>();
  auto* acc = profile.add_subcommand("accumulation",
                                      "Synthetic contention sweep of the AD core: contributions to K keys, random "
                                      "or coherent (runs of equal ids), row width D");
  add_profile_options(acc, *args, "accumulation.json, accumulation.md and accumulation.png");
  acc->add_option("--count", args->count, "Contributions per case (default 2^24 on CUDA, 2^20 on CPU)");
  acc->add_option("--keys", args->keys, "Numbers of distinct keys (default 1 16 256 4096 1048576)");
  acc->add_option("--patterns", args->patterns, "Key patterns: random, coherent");
  acc->add_option("--widths", args->widths, "Row widths D (1..32)")->check(checks::range(1, 32));
  acc->add_option("--strategies", args->strategies,
                  "Strategies (default all): atomic warp-aggregated sort-reduce owned");
  acc->callback([args] { run_accumulation(*args); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(accumulation, add_accumulation_workload);

}  // namespace tilegrad::cli
