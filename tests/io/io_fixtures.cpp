// Temporary folders for the I/O tests.
#include "io_fixtures.h"

#include <atomic>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "tilegrad/io/image.h"

namespace tilegrad::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  const fs::path p =
      fs::temp_directory_path() / ("tilegrad_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::remove_all(p);
  fs::create_directories(p);
  m_path = p.string();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(m_path, ec);
}

std::string TempDir::write(const std::string& relative, std::string_view bytes) const {
  const fs::path p = fs::path(m_path) / relative;
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(f.good()) << "cannot write fixture " << p;
  return p.string();
}

std::string TempDir::write_png(const std::string& relative, int width, int height) const {
  const fs::path p = fs::path(m_path) / relative;
  fs::create_directories(p.parent_path());
  io::write_png(p.string(), io::Image(width, height, 3));
  return p.string();
}

}  // namespace tilegrad::test
