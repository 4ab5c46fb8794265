// Helpers of io_util.h.
#include "io_util.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>

namespace tilegrad::io::internal {

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, expected a file");
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "file not found or not readable");
  std::string bytes;
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.tellg();
  if (size < 0) fail(path, "cannot determine the file size");
  bytes.resize(static_cast<std::size_t>(size));
  f.seekg(0, std::ios::beg);
  if (size > 0 && !f.read(bytes.data(), size)) fail(path, "read failed");
  return bytes;
}

namespace {

// from_chars rejects a leading '+', which some writers emit.
std::string_view strip_plus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') token.remove_prefix(1);
  return token;
}

template <class T>
bool parse_whole(std::string_view token, T& out) {
  token = strip_plus(token);
  if (token.empty()) return false;
  const char* end = token.data() + token.size();
  const auto result = std::from_chars(token.data(), end, out);
  return result.ec == std::errc() && result.ptr == end;
}

}  // namespace

bool parse_double(std::string_view token, double& out) { return parse_whole(token, out); }
bool parse_int64(std::string_view token, std::int64_t& out) { return parse_whole(token, out); }
bool parse_uint64(std::string_view token, std::uint64_t& out) { return parse_whole(token, out); }

float to_float(double value) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (value > kMax) return std::numeric_limits<float>::infinity();
  if (value < -kMax) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);  // NaN and in-range values convert without undefined behaviour
}

const char* non_finite_name(double value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "inf" : "-inf";
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "'";
}

}  // namespace tilegrad::io::internal
