// Run metadata, Markdown tables and number formatting for the benchmark reports.
#include "tilegrad/profiling/report.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::profiling {

nlohmann::json run_info(Device device) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32];
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"git_sha", TILEGRAD_GIT_SHA},
          {"tilegrad_version", TILEGRAD_VERSION},
          {"device", to_string(device)},
          {"device_name", device == Device::Cuda ? cuda_device_description() : std::string("host CPU")},
          {"utc", when}};
}

std::string MarkdownTable::str() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) s += " " + c + " |";
    return s + "\n";
  };
  std::string out = line(header);
  out += "|";
  for (std::size_t i = 0; i < header.size(); ++i) out += i == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ms < 1.0 ? "%.4f" : (ms < 100.0 ? "%.3f" : "%.1f"), ms);
  return buf;
}

std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), r < 10.0 ? "%.2fx" : "%.1fx", r);
  return buf;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 3) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", bytes, units[u]);
  return buf;
}

void write_file_bytes(const std::string& path, const void* data, std::size_t bytes) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw IoError(detail::concat(path, ": cannot create folder: ", ec.message()));
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw IoError(detail::concat(path, ": cannot open for writing"));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f) throw IoError(detail::concat(path, ": write failed"));
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file_bytes(path, text.data(), text.size());
}

std::string digest(const void* data, std::size_t bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= static_cast<const unsigned char*>(data)[i];
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace tilegrad::profiling
