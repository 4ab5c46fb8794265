// Options every `tilegrad profile` workload takes (--device, --warmup, --reps, --out, --json), and its report.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "cli_checks.h"
#include "tilegrad/core/device.h"
#include "tilegrad/profiling/report.h"

namespace tilegrad::cli {

// A workload's arguments derive from it; set other warmup / reps defaults before add_profile_options.
struct ProfileOptions {
  std::string device = "auto";
  int warmup = 3;
  int reps = 20;
  std::string out;           // folder for the report files
  bool json_stdout = false;  // the JSON report on stdout, progress on stderr

  Device parsed_device() const { return device == "auto" ? default_device() : parse_device(device); }
  std::FILE* log() const { return json_stdout ? stderr : stdout; }  // where progress goes
};

// `files`: what --out receives, for its help ("raster.json, raster.md and raster.png").
inline void add_profile_options(CLI::App* cmd, ProfileOptions& o, const std::string& files) {
  cmd->add_option("--device", o.device, "cpu, cuda or auto (cuda when available)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Untimed runs before timing")
      ->check(checks::non_negative())
      ->capture_default_str();
  cmd->add_option("--reps", o.reps, "Timed runs; the median is reported")
      ->check(checks::positive())
      ->capture_default_str();
  cmd->add_option("--out", o.out, "Folder for " + files);
  cmd->add_flag("--json", o.json_stdout, "Print the JSON report on stdout (progress goes to stderr)");
}

// Prints the report (JSON with --json, else Markdown) and with --out writes OUT/<name>.json and OUT/<name>.md.
// Returns whether it wrote files (the workload may add its own).
inline bool write_report(const ProfileOptions& o, const std::string& name, const nlohmann::json& json,
                         const std::string& md) {
  if (o.json_stdout) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("\n%s", md.c_str());
  }
  if (o.out.empty()) return false;
  profiling::write_text_file(o.out + "/" + name + ".json", json.dump(2) + "\n");
  profiling::write_text_file(o.out + "/" + name + ".md", md);
  std::fprintf(o.log(), "wrote %s/%s.json and %s.md\n", o.out.c_str(), name.c_str(), name.c_str());
  return true;
}

}  // namespace tilegrad::cli
