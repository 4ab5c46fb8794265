// A 64-bit checksum for checkpoint files: FNV-1a over 64-bit little-endian words (the tail zero-padded), then
// the byte count. Each step (h ^ word) * prime is a bijection of h for a given word, so a file that differs from
// the original in one word, or in its length, always gets another value. About 2 bytes per cycle: a 200 MB
// checkpoint costs some 30 ms. Not cryptographic: it detects accidents, not tampering.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tilegrad::training {

class Checksum {
 public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    m_bytes += n;
    while (n > 0 && m_pending > 0) {  // complete a word begun by an earlier call
      push_byte(*p++);
      --n;
    }
    for (; n >= 8; n -= 8, p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
    }
    while (n-- > 0) push_byte(*p++);
  }
  std::uint64_t value() const {
    std::uint64_t h = m_hash;
    if (m_pending > 0) h = (h ^ m_word) * kPrime;
    return (h ^ m_bytes) * kPrime;
  }

 private:
  static constexpr std::uint64_t kPrime = 0x100000001b3ull;
  void mix(std::uint64_t w) { m_hash = (m_hash ^ w) * kPrime; }
  void push_byte(unsigned char b) {
    m_word |= std::uint64_t(b) << (8 * m_pending);
    if (++m_pending == 8) {
      mix(m_word);
      m_word = 0;
      m_pending = 0;
    }
  }
  std::uint64_t m_hash = 0xcbf29ce484222325ull, m_word = 0, m_bytes = 0;
  int m_pending = 0;
};

}  // namespace tilegrad::training
