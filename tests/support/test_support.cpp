// Helpers of test_support.h.
#include "test_support.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tilegrad::test {

bool path_exists(const std::string& path) { return std::filesystem::exists(path); }

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::size_t scaled(std::size_t n) {
  const char* scale = std::getenv("TILEGRAD_TEST_SCALE");
  if (scale && std::string(scale) == "small") return n / 16 > 0 ? n / 16 : 1;
  return n;
}

std::string shared_data_dir() {
  if (const char* env = std::getenv("TILEGRAD_SHARED_DATA")) return path_exists(env) ? env : "";
  const std::string fallback = std::string(TILEGRAD_SOURCE_DIR) + "/../shared/data";
  return path_exists(fallback) ? fallback : "";
}

TempDir::TempDir() {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const fs::path p =
      fs::temp_directory_path() / ("tilegrad_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::remove_all(p);
  fs::create_directories(p);
  m_path = p.string();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::string TempDir::write(const std::string& relative, std::string_view bytes) const {
  const std::filesystem::path p = std::filesystem::path(m_path) / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(f.good()) << "cannot write fixture " << p;
  return p.string();
}

}  // namespace tilegrad::test
