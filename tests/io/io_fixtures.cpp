// Blank PNG fixtures for the I/O tests.
#include "io_fixtures.h"

#include <filesystem>

#include "tilegrad/io/image.h"

namespace tilegrad::test {

std::string write_png(const TempDir& dir, const std::string& relative, int width, int height) {
  const std::filesystem::path p = std::filesystem::path(dir.path()) / relative;
  std::filesystem::create_directories(p.parent_path());
  io::write_png(p.string(), io::Image(width, height, 3));
  return p.string();
}

}  // namespace tilegrad::test
