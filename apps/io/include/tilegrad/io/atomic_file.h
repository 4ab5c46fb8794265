// Files replaced atomically: the bytes go to a temporary beside the destination ("<path>.partial"), which is
// renamed over the destination only when complete. A process killed, a full disk or an exception while writing
// leaves the previous file (or none) in place, never a truncated one.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace tilegrad::io {

class AtomicFile {
 public:
  // Opens "<path>.partial" for writing (parent folders must exist); IoError naming the path when it cannot.
  explicit AtomicFile(std::string path);
  // Without commit() (an error on the way) the temporary is removed and the destination left as it was.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // IoError naming the path when a write fails (disk full, file size limit).
  void write(const void* data, std::size_t bytes);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  // Flushes, closes and renames the temporary over the destination.
  void commit();
  const std::string& path() const { return m_path; }

 private:
  std::string m_path, m_temp;
  std::FILE* m_file = nullptr;
};

// The whole file in one call (creates no folders).
void write_file_atomically(const std::string& path, std::string_view bytes);

// The temporary name AtomicFile writes to before renaming it to `path`.
std::string partial_path(const std::string& path);

}  // namespace tilegrad::io
