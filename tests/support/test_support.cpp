// Helpers of test_support.h.
#include "test_support.h"

#include <cstdlib>
#include <filesystem>

namespace tilegrad::test {

bool path_exists(const std::string& path) { return std::filesystem::exists(path); }

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

}  // namespace tilegrad::test
