// Report helpers shared by all benchmarks: run metadata (git SHA, device, date) and Markdown tables.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tilegrad/core/device.h"

namespace tilegrad::profiling {

// git SHA of the build, device description, UTC time, tilegrad version.
nlohmann::json run_info(Device device);

struct MarkdownTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string str() const;
};

std::string format_ms(double ms);
std::string format_ratio(double r);
std::string format_bytes(double bytes);

// Writes `text` to `path` (creating parent folders); throws IoError naming the path on failure.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace tilegrad::profiling
