// The AD core's synthetic contention sweep: every accumulation strategy on the same contributions, over
// numbers of distinct keys, key patterns and row widths; checks agreement, times medians.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/device.h"

namespace tilegrad::profiling {

enum class KeyPattern { Random, Coherent };
const char* to_string(KeyPattern p);
KeyPattern parse_key_pattern(const std::string& name);

struct SweepConfig {
  Device device = Device::Cpu;
  std::size_t count = std::size_t(1) << 24;  // contributions per case
  std::vector<std::size_t> keys = {1, 16, 256, 4096, std::size_t(1) << 20};
  std::vector<KeyPattern> patterns = {KeyPattern::Random, KeyPattern::Coherent};
  std::vector<int> widths = {1, 9};
  std::vector<Accumulation> strategies = {kAllAccumulations.begin(), kAllAccumulations.end()};
  int warmup = 3;
  int reps = 20;
  std::uint64_t seed = 1;
};

struct SweepResult {
  std::size_t keys = 0;
  KeyPattern pattern = KeyPattern::Random;
  int width = 1;
  Accumulation strategy = Accumulation::Atomic;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  double max_error = 0;          // vs float64, relative to the summed magnitudes
  bool bitwise_repeatable = false;
  std::size_t workspace_bytes = 0;
};

// Progress lines go to `log` (may be null).
std::vector<SweepResult> run_accumulation_sweep(const SweepConfig& config, std::FILE* log);

nlohmann::json sweep_to_json(const SweepConfig& config, const std::vector<SweepResult>& results);
std::string sweep_to_markdown(const SweepConfig& config, const std::vector<SweepResult>& results);
// One panel per (width, keys, pattern), one bar per strategy.
void write_sweep_chart(const std::string& path, const std::vector<SweepResult>& results);

}  // namespace tilegrad::profiling
