// Internal helpers shared by the file readers: IoError construction, whole-file reading, locale-independent
// number parsing and range-checked narrowing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "tilegrad/core/error.h"

namespace tilegrad::io::internal {

// Throws IoError("<file>: <message>").
template <class... Args>
[[noreturn]] void fail(std::string_view file, const Args&... args) {
  throw IoError(::tilegrad::detail::concat(file, ": ", args...));
}

// The whole file as bytes; IoError when it is missing, a directory or unreadable.
std::string read_file(const std::string& path);

// Strict whole-token parses (no leading/trailing garbage; a leading '+' is accepted). False on failure,
// including values out of the type's range.
bool parse_double(std::string_view token, double& out);
bool parse_int64(std::string_view token, std::int64_t& out);
bool parse_uint64(std::string_view token, std::uint64_t& out);

// double -> float without undefined behaviour: finite values beyond the float range become +-infinity.
float to_float(double value);

// "NaN", "inf" or "-inf" for messages about non-finite values.
const char* non_finite_name(double value);

// Short, printable excerpt of untrusted text for error messages.
std::string quote(std::string_view text);

}  // namespace tilegrad::io::internal
