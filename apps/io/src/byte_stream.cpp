// Buffered file and memory reading for ByteStream.
#include "byte_stream.h"

#include <filesystem>
#include <system_error>

#include "io_util.h"

namespace tilegrad::io::internal {

namespace {
constexpr std::size_t kChunkBytes = std::size_t(1) << 20;  // large enough that per-chunk costs vanish
}

ByteStream ByteStream::open(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, expected a file");
  ByteStream s;
  s.m_name = path;
  s.m_file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*s.m_file) fail(path, "file not found or not readable");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "cannot determine the file size (", ec.message(), ")");
  s.m_size = size;
  return s;
}

ByteStream::ByteStream(std::string_view bytes, std::string name)
    : m_name(std::move(name)), m_window(bytes), m_size(bytes.size()) {}

bool ByteStream::refill() {
  if (!m_file || m_offset >= m_size) return false;
  m_buffer.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, m_size - m_offset)));
  m_file->read(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
  const auto got = static_cast<std::size_t>(std::max<std::streamsize>(m_file->gcount(), 0));
  if (got == 0) {
    m_size = m_offset;  // the file shrank while being read: treat what we have as its end
    return false;
  }
  m_window = std::string_view(m_buffer.data(), got);
  m_pos = 0;
  return true;
}

bool ByteStream::read(void* dst, std::size_t n) {
  if (n > remaining()) {
    skip(remaining());
    return false;
  }
  auto* out = static_cast<char*>(dst);
  while (n > 0) {
    if (m_pos == m_window.size() && !refill()) return false;
    const std::size_t take = std::min(n, m_window.size() - m_pos);
    std::memcpy(out, m_window.data() + m_pos, take);
    out += take;
    n -= take;
    m_pos += take;
    m_offset += take;
  }
  return true;
}

bool ByteStream::skip(std::uint64_t n) {
  const bool whole = n <= remaining();
  if (!whole) n = remaining();
  const std::size_t in_window = static_cast<std::size_t>(std::min<std::uint64_t>(n, m_window.size() - m_pos));
  m_pos += in_window;
  m_offset += in_window;
  n -= in_window;
  if (n > 0) {  // only file streams get here: seek past the rest instead of reading it
    m_file->seekg(static_cast<std::streamoff>(n), std::ios::cur);
    m_offset += n;
    m_window = {};
    m_pos = 0;
  }
  return whole;
}

}  // namespace tilegrad::io::internal
