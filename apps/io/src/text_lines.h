// Line and word splitting for the text formats (OBJ, OFF, COLMAP .txt), with 1-based line numbers for messages.
#pragma once
#include <cstdint>
#include <string_view>

namespace tilegrad::io::internal {

// Lines of a text; "\n" and "\r\n" endings are removed.
class TextLines {
 public:
  explicit TextLines(std::string_view text) : m_text(text) {}
  bool next(std::string_view& line) {
    if (m_pos >= m_text.size()) return false;
    std::size_t end = m_text.find('\n', m_pos);
    if (end == std::string_view::npos) end = m_text.size();
    line = m_text.substr(m_pos, end - m_pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    m_pos = end + 1;
    ++m_line;
    return true;
  }
  std::uint64_t line_number() const { return m_line; }
  std::size_t bytes_left() const { return m_pos >= m_text.size() ? 0 : m_text.size() - m_pos; }

 private:
  std::string_view m_text;
  std::size_t m_pos = 0;
  std::uint64_t m_line = 0;
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Whitespace-separated words of one line.
class Words {
 public:
  explicit Words(std::string_view line) : m_rest(line) {}
  bool next(std::string_view& word) {
    skip_space();
    if (m_rest.empty()) return false;
    std::size_t n = 0;
    while (n < m_rest.size() && !is_space(m_rest[n])) ++n;
    word = m_rest.substr(0, n);
    m_rest.remove_prefix(n);
    return true;
  }
  // What has not been split yet, without leading or trailing whitespace.
  std::string_view rest() {
    skip_space();
    std::string_view r = m_rest;
    while (!r.empty() && is_space(r.back())) r.remove_suffix(1);
    return r;
  }

 private:
  void skip_space() {
    while (!m_rest.empty() && is_space(m_rest.front())) m_rest.remove_prefix(1);
  }
  std::string_view m_rest;
};

// The part of a line before a '#' comment.
inline std::string_view strip_comment(std::string_view line) { return line.substr(0, line.find('#')); }

}  // namespace tilegrad::io::internal
