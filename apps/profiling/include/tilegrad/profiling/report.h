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

// Writes `text` (or `bytes` bytes at `data`) to `path`, creating parent folders; throws IoError naming the path on
// failure.
void write_text_file(const std::string& path, const std::string& text);
void write_file_bytes(const std::string& path, const void* data, std::size_t bytes);

// A 64-bit FNV-1a hash of the bytes, 16 hex digits: equal outputs have equal digests (to compare runs and builds).
std::string digest(const void* data, std::size_t bytes);

}  // namespace tilegrad::profiling
