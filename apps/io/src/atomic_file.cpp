// AtomicFile: stdio writes to "<path>.partial", then rename(2), which replaces the destination in one step on
// POSIX file systems.
#include "tilegrad/io/atomic_file.h"

#include <cerrno>
#include <cstring>

#include "io_util.h"

namespace tilegrad::io {

std::string partial_path(const std::string& path) { return path + ".partial"; }

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path)), m_temp(partial_path(m_path)) {
  m_file = std::fopen(m_temp.c_str(), "wb");
  if (!m_file) internal::fail(m_path, "cannot open for writing (", std::strerror(errno), ")");
}

AtomicFile::~AtomicFile() {
  if (!m_file) return;
  std::fclose(m_file);
  std::remove(m_temp.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (!m_file) internal::fail(m_path, "write after commit");
  if (bytes > 0 && std::fwrite(data, 1, bytes, m_file) != bytes)
    internal::fail(m_path, "write failed (", std::strerror(errno), ")");
}

void AtomicFile::commit() {
  if (!m_file) internal::fail(m_path, "committed twice");
  const bool flushed = std::fflush(m_file) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(m_file) == 0;
  m_file = nullptr;
  if (!flushed || !closed) {
    std::remove(m_temp.c_str());
    internal::fail(m_path, "write failed (", std::strerror(flushed ? errno : flush_errno), ")");
  }
  if (std::rename(m_temp.c_str(), m_path.c_str()) != 0) {
    const int e = errno;
    std::remove(m_temp.c_str());
    internal::fail(m_path, "cannot replace the file (", std::strerror(e), ")");
  }
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicFile f(path);
  f.write(bytes);
  f.commit();
}

}  // namespace tilegrad::io
