// PLY header parsing: magic, format, comments and obj_info, elements, scalar and list properties.
#include <string>
#include <vector>

#include "io_util.h"
#include "ply_internal.h"

namespace tilegrad::io::internal {

namespace {

// A real header is a few KiB; the bound keeps a file without "end_header" from being scanned as text.
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t(1) << 20;

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// Text after the keyword and one separator ("comment made by x" -> "made by x").
std::string rest_after(std::string_view line, std::string_view keyword) {
  std::string_view rest = line.substr(keyword.size());
  if (!rest.empty() && (rest[0] == ' ' || rest[0] == '\t')) rest.remove_prefix(1);
  return std::string(rest);
}

class HeaderParser {
 public:
  explicit HeaderParser(ByteStream& in) : m_in(in) {}

  PlyHeader parse() {
    std::string line;
    if (!next_line(line)) fail(m_in.name(), "empty file, expected a PLY header");
    if (line != "ply") fail(m_in.name(), "not a PLY file (the first line is ", quote(line), ", expected 'ply')");
    bool has_format = false;
    while (true) {
      if (!next_line(line))
        fail(m_in.name(), "the header has no 'end_header' line (file ends at header line ", m_line, ")");
      const std::vector<std::string_view> w = split_words(line);
      if (w.empty()) continue;
      if (w[0] == "end_header") break;
      if (w[0] == "comment") {
        m_header.comments.push_back(rest_after(line, "comment"));
      } else if (w[0] == "obj_info") {
        m_header.obj_info.push_back(rest_after(line, "obj_info"));
      } else if (w[0] == "format") {
        if (has_format) error("a second 'format' line");
        parse_format(w);
        has_format = true;
      } else if (w[0] == "element") {
        if (!has_format) error("'element' before the 'format' line");
        parse_element(w);
      } else if (w[0] == "property") {
        parse_property(w);
      } else {
        error("unknown keyword ", quote(w[0]));
      }
    }
    if (!has_format) fail(m_in.name(), "the header has no 'format' line");
    return std::move(m_header);
  }

 private:
  template <class... Args>
  [[noreturn]] void error(const Args&... args) {
    fail(m_in.name(), "header line ", m_line, ": ", args...);
  }

  // Lines end with '\n'; a '\r' before it is dropped. False at the end of the file.
  bool next_line(std::string& line) {
    line.clear();
    int c = m_in.get();
    if (c < 0) return false;
    ++m_line;
    while (c >= 0 && c != '\n') {
      if (m_in.offset() > kMaxHeaderBytes)
        fail(m_in.name(), "no 'end_header' within the first ", kMaxHeaderBytes, " bytes");
      line.push_back(static_cast<char>(c));
      c = m_in.get();
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }

  void parse_format(const std::vector<std::string_view>& w) {
    if (w.size() != 3) error("expected 'format <ascii|binary_little_endian|binary_big_endian> 1.0'");
    if (w[1] == "ascii") {
      m_header.format = PlyFormat::Ascii;
    } else if (w[1] == "binary_little_endian") {
      m_header.format = PlyFormat::BinaryLittleEndian;
    } else if (w[1] == "binary_big_endian") {
      m_header.format = PlyFormat::BinaryBigEndian;
    } else {
      error("unknown format ", quote(w[1]));
    }
    double version = 0;
    if (!parse_double(w[2], version) || version != 1.0)
      error("unsupported PLY version ", quote(w[2]), " (expected 1.0)");
  }

  void parse_element(const std::vector<std::string_view>& w) {
    if (w.size() != 3) error("expected 'element <name> <count>'");
    if (m_header.find(w[1])) error("element ", quote(w[1]), " declared twice");
    PlyElement e;
    e.name = std::string(w[1]);
    if (!parse_uint64(w[2], e.count))
      error("element ", quote(w[1]), ": count ", quote(w[2]), " is not a non-negative integer");
    m_header.elements.push_back(std::move(e));
  }

  PlyType parse_type(std::string_view name) {
    PlyType t;
    if (!parse_ply_type(name, t)) error("unknown property type ", quote(name));
    return t;
  }

  void parse_property(const std::vector<std::string_view>& w) {
    if (m_header.elements.empty()) error("'property' before any 'element'");
    PlyElement& e = m_header.elements.back();
    PlyProperty p;
    if (w.size() >= 2 && w[1] == "list") {
      if (w.size() != 5) error("expected 'property list <count type> <item type> <name>'");
      p.is_list = true;
      p.count_type = parse_type(w[2]);
      if (!ply_type_is_integer(p.count_type))
        error("list ", quote(w[4]), ": the length type must be an integer type, not ", quote(w[2]));
      p.type = parse_type(w[3]);
      p.name = std::string(w[4]);
    } else {
      if (w.size() != 3) error("expected 'property <type> <name>' or 'property list <count type> <item type> <name>'");
      p.type = parse_type(w[1]);
      p.name = std::string(w[2]);
    }
    if (e.find(p.name)) error("element ", quote(e.name), ": property ", quote(p.name), " declared twice");
    e.properties.push_back(std::move(p));
  }

  ByteStream& m_in;
  PlyHeader m_header;
  std::uint64_t m_line = 0;
};

}  // namespace

PlyHeader parse_ply_header(ByteStream& in) { return HeaderParser(in).parse(); }

}  // namespace tilegrad::io::internal
