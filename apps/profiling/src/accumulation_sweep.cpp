// The contention sweep of the accumulation strategies (see accumulation_sweep.h).
#include "tilegrad/profiling/accumulation_sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tilegrad/ad/accumulator.h"
#include "tilegrad/core/error.h"
#include "tilegrad/profiling/bar_chart.h"
#include "tilegrad/profiling/report.h"
#include "tilegrad/profiling/timer.h"

namespace tilegrad::profiling {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser: a counter-based hash
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct HostCase {
  std::vector<std::uint32_t> ids;
  std::vector<float> values;
  std::vector<std::uint32_t> grouped_ids, offsets;  // the Owned layout
  std::vector<float> grouped_values;
  std::vector<double> ref_sum, ref_magnitude;
};

HostCase make_case(std::size_t count, std::size_t keys, KeyPattern pattern, int width, std::uint64_t seed) {
  HostCase h;
  h.ids.resize(count);
  h.values.resize(count * width);
  constexpr std::size_t kBlock = 4096;  // coherent runs are generated block by block, in parallel
  const auto blocks = static_cast<std::ptrdiff_t>((count + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * kBlock, end = std::min(count, begin + kBlock);
    std::uint64_t state = mix(seed ^ (static_cast<std::uint64_t>(b) << 20));
    std::uint32_t id = 0;
    std::size_t left = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (pattern == KeyPattern::Random || left == 0) {
        state = mix(state);
        id = static_cast<std::uint32_t>(state % keys);
        state = mix(state);
        left = 1 + state % 64;  // run of 1..64 equal ids (coherent)
      }
      --left;
      h.ids[i] = id;
      for (int c = 0; c < width; ++c) {
        const std::uint64_t r = mix(seed * 0x2545F4914F6CDD1Dull + i * width + c);
        h.values[i * width + c] = static_cast<float>(static_cast<double>(r >> 11) * 0x1.0p-53 * 2.0 - 1.0);
      }
    }
  }
  // Counting sort by id: the owner-grouped layout.
  h.offsets.assign(keys + 1, 0);
  for (std::uint32_t id : h.ids) ++h.offsets[id + 1];
  for (std::size_t k = 0; k < keys; ++k) h.offsets[k + 1] += h.offsets[k];
  std::vector<std::uint32_t> cursor(h.offsets.begin(), h.offsets.end() - 1);
  h.grouped_ids.resize(count);
  h.grouped_values.resize(count * width);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t slot = cursor[h.ids[i]]++;
    h.grouped_ids[slot] = h.ids[i];
    std::memcpy(&h.grouped_values[slot * width], &h.values[i * width], sizeof(float) * width);
  }
  h.ref_sum.assign(keys * width, 0.0);
  h.ref_magnitude.assign(keys * width, 0.0);
  const auto k_count = static_cast<std::ptrdiff_t>(keys);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t k = 0; k < k_count; ++k)
    for (std::uint32_t i = h.offsets[k]; i < h.offsets[k + 1]; ++i)
      for (int c = 0; c < width; ++c) {
        h.ref_sum[k * width + c] += h.grouped_values[std::size_t(i) * width + c];
        h.ref_magnitude[k * width + c] += std::fabs(h.grouped_values[std::size_t(i) * width + c]);
      }
  return h;
}

double worst_error(const std::vector<float>& got, const HostCase& h) {
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - h.ref_sum[i]) / std::max(h.ref_magnitude[i], 1e-30);
    worst = std::max(worst, std::isfinite(e) ? e : 1e30);
  }
  return worst;
}

}  // namespace

const char* to_string(KeyPattern p) { return p == KeyPattern::Random ? "random" : "coherent"; }

KeyPattern parse_key_pattern(const std::string& name) {
  if (name == "random") return KeyPattern::Random;
  if (name == "coherent") return KeyPattern::Coherent;
  throw InvalidArgument("unknown key pattern '" + name + "' (expected random or coherent)");
}

std::vector<SweepResult> run_accumulation_sweep(const SweepConfig& cfg, std::FILE* log) {
  require_device(cfg.device);
  TG_CHECK_ARG(cfg.count > 0, "the sweep needs at least one contribution");
  std::vector<SweepResult> results;
  for (int width : cfg.widths) {
    for (std::size_t keys : cfg.keys) {
      TG_CHECK_ARG(keys > 0, "keys must be positive");
      for (KeyPattern pattern : cfg.patterns) {
        const HostCase h = make_case(cfg.count, keys, pattern, width, cfg.seed);
        const Device d = cfg.device;
        auto ids = Buffer<std::uint32_t>::from(h.ids, d);
        auto values = Buffer<float>::from(h.values, d);
        auto grouped_ids = Buffer<std::uint32_t>::from(h.grouped_ids, d);
        auto grouped_values = Buffer<float>::from(h.grouped_values, d);
        auto offsets = Buffer<std::uint32_t>::from(h.offsets, d);
        auto grad = Buffer<float>(keys * width, d);
        for (Accumulation s : cfg.strategies) {
          Accumulator acc(d);
          Contributions in;
          in.width = width;
          if (s == Accumulation::Owned) {
            in.ids = grouped_ids.view();
            in.values = grouped_values.view();
            in.offsets = offsets.view();
          } else {
            in.ids = ids.view();
            in.values = values.view();
          }
          // Correctness first (validated run), then the timed runs without validation.
          grad.zero();
          acc.accumulate(s, in, grad.view(), {true});
          const auto first = grad.to_vector();
          grad.zero();
          acc.accumulate(s, in, grad.view(), {true});
          const auto second = grad.to_vector();
          const Samples t = time_repeated(
              d, cfg.warmup, cfg.reps, [&] { grad.zero(); },
              [&] { acc.accumulate(s, in, grad.view(), {false}); });
          SweepResult r;
          r.keys = keys;
          r.pattern = pattern;
          r.width = width;
          r.strategy = s;
          r.median_ms = t.median();
          r.p10_ms = t.percentile(0.1);
          r.p90_ms = t.percentile(0.9);
          r.max_error = worst_error(first, h);
          r.bitwise_repeatable = std::memcmp(first.data(), second.data(), first.size() * sizeof(float)) == 0;
          r.workspace_bytes = acc.workspace_bytes();
          results.push_back(r);
          if (log) {
            std::fprintf(log, "  keys %8zu  %-8s D=%-2d  %-16s %10s ms  err %.1e  %s\n", keys, to_string(pattern),
                         width, to_string(s), format_ms(r.median_ms).c_str(), r.max_error,
                         r.bitwise_repeatable ? "repeatable" : "varies");
            std::fflush(log);
          }
        }
      }
    }
  }
  return results;
}

nlohmann::json sweep_to_json(const SweepConfig& cfg, const std::vector<SweepResult>& results) {
  nlohmann::json j;
  j["benchmark"] = "accumulation_sweep";
  j["run"] = run_info(cfg.device);
  j["config"] = {{"count", cfg.count}, {"warmup", cfg.warmup}, {"reps", cfg.reps}, {"seed", cfg.seed}};
  for (const auto& r : results) {
    j["results"].push_back({{"keys", r.keys},
                            {"pattern", to_string(r.pattern)},
                            {"width", r.width},
                            {"strategy", to_string(r.strategy)},
                            {"median_ms", r.median_ms},
                            {"p10_ms", r.p10_ms},
                            {"p90_ms", r.p90_ms},
                            {"max_error", r.max_error},
                            {"bitwise_repeatable", r.bitwise_repeatable},
                            {"workspace_bytes", r.workspace_bytes}});
  }
  return j;
}

std::string sweep_to_markdown(const SweepConfig& cfg, const std::vector<SweepResult>& results) {
  MarkdownTable t;
  t.header = {"keys", "pattern", "D"};
  for (Accumulation s : cfg.strategies) t.header.push_back(std::string(to_string(s)) + " ms");
  for (Accumulation s : cfg.strategies)
    if (s != Accumulation::Atomic) t.header.push_back(std::string("atomic / ") + to_string(s));
  t.header.push_back("best");
  for (std::size_t i = 0; i + cfg.strategies.size() <= results.size(); i += cfg.strategies.size()) {
    const SweepResult& first = results[i];
    std::vector<std::string> row = {std::to_string(first.keys), to_string(first.pattern), std::to_string(first.width)};
    double atomic = 0, best = 1e300;
    std::string best_name;
    for (std::size_t k = 0; k < cfg.strategies.size(); ++k) {
      const SweepResult& r = results[i + k];
      row.push_back(format_ms(r.median_ms));
      if (r.strategy == Accumulation::Atomic) atomic = r.median_ms;
      if (r.median_ms < best) {
        best = r.median_ms;
        best_name = to_string(r.strategy);
      }
    }
    for (std::size_t k = 0; k < cfg.strategies.size(); ++k) {
      const SweepResult& r = results[i + k];
      if (r.strategy != Accumulation::Atomic) row.push_back(atomic > 0 ? format_ratio(atomic / r.median_ms) : "-");
    }
    row.push_back(best_name);
    t.rows.push_back(row);
  }
  return t.str();
}

void write_sweep_chart(const std::string& path, const std::vector<SweepResult>& results) {
  BarChart chart;
  chart.title = "Accumulation strategies: median ms per case";
  chart.segment_names = {"time"};
  for (const auto& r : results) {
    const std::string title = "D=" + std::to_string(r.width) + ", " + std::to_string(r.keys) + " keys, " +
                              to_string(r.pattern);
    if (chart.panels.empty() || chart.panels.back().title != title) chart.panels.push_back({title, {}});
    chart.panels.back().bars.push_back({to_string(r.strategy), {r.median_ms}});
  }
  write_bar_chart(path, chart);
}

}  // namespace tilegrad::profiling
