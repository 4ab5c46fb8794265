// Bounds-checked sequential reading of a file (buffered) or of bytes in memory. The total size is known up
// front, so element counts read from a header can be checked against what is left before anything is
// allocated for them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tilegrad::io::internal {

constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

// A scalar stored at `bytes` with the given byte order.
template <class T>
T load_scalar(const unsigned char* bytes, bool little_endian) {
  unsigned char tmp[sizeof(T)];
  std::memcpy(tmp, bytes, sizeof(T));
  if (little_endian != kHostLittleEndian) std::reverse(tmp, tmp + sizeof(T));
  T value;
  std::memcpy(&value, tmp, sizeof(T));
  return value;
}

// Appends the bytes of a scalar in little-endian order.
template <class T>
void append_le(std::string& out, T value) {
  unsigned char tmp[sizeof(T)];
  std::memcpy(tmp, &value, sizeof(T));
  if (!kHostLittleEndian) std::reverse(tmp, tmp + sizeof(T));
  out.append(reinterpret_cast<const char*>(tmp), sizeof(T));
}

class ByteStream {
 public:
  // Opens a file for reading; IoError naming it when it is missing or a directory.
  static ByteStream open(const std::string& path);
  // Reads `bytes`, which must outlive the stream; `name` is used in error messages.
  ByteStream(std::string_view bytes, std::string name);

  const std::string& name() const { return m_name; }
  std::uint64_t size() const { return m_size; }
  std::uint64_t offset() const { return m_offset; }
  std::uint64_t remaining() const { return m_size - m_offset; }

  // Copies the next n bytes; false (stream left at its end) when fewer remain.
  bool read(void* dst, std::size_t n);
  bool skip(std::uint64_t n);
  // Next byte (0..255) or -1 at the end.
  int get() {
    if (m_pos == m_window.size() && !refill()) return -1;
    ++m_offset;
    return static_cast<unsigned char>(m_window[m_pos++]);
  }
  int peek() {
    if (m_pos == m_window.size() && !refill()) return -1;
    return static_cast<unsigned char>(m_window[m_pos]);
  }

  // Little-endian scalar (COLMAP binary); false at the end.
  template <class T>
  bool read_le(T& value) {
    unsigned char tmp[sizeof(T)];
    if (!read(tmp, sizeof(T))) return false;
    value = load_scalar<T>(tmp, true);
    return true;
  }

 private:
  ByteStream() = default;
  bool refill();

  std::string m_name;
  std::unique_ptr<std::ifstream> m_file;  // null for memory streams
  std::vector<char> m_buffer;             // file chunk
  std::string_view m_window;              // bytes available now (the whole memory block, or the chunk)
  std::size_t m_pos = 0;                  // read position in m_window
  std::uint64_t m_offset = 0;             // bytes consumed in total
  std::uint64_t m_size = 0;
};

}  // namespace tilegrad::io::internal
