// Typed exceptions: errors the user caused (bad input, shapes, files, devices) vs broken invariants.
#pragma once
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tilegrad {

// Base of everything tilegrad throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Wrong argument: shape, size, range, NaN where a number is required, device mismatch.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};
// A file that is missing, unreadable, truncated or malformed; the message names the file.
class IoError : public Error {
 public:
  using Error::Error;
};
// A feature this build or machine lacks (CUDA requested without a CUDA build or device).
class Unsupported : public Error {
 public:
  using Error::Error;
};
// A CUDA runtime call or kernel launch failed.
class CudaError : public Error {
 public:
  using Error::Error;
};
// An allocation the host or the GPU could not satisfy; the message names the stage, the bytes requested and
// what is held (memory::StageScope names the stage).
class OutOfMemory : public Error {
 public:
  using Error::Error;
  OutOfMemory(const std::string& what, std::string stage, std::size_t bytes)
      : Error(what), m_stage(std::move(stage)), m_bytes(bytes) {}
  // The stage that asked (empty outside every StageScope) and the bytes it asked for (0 when unknown).
  const std::string& stage() const { return m_stage; }
  std::size_t bytes() const { return m_bytes; }

 private:
  std::string m_stage;
  std::size_t m_bytes = 0;
};
// A broken internal invariant: a bug in tilegrad, not in the caller's input.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] void throw_internal(const char* file, int line, const std::string& what);
}  // namespace detail

}  // namespace tilegrad

// User-facing precondition: throws ExceptionType with the streamed message.
#define TG_REQUIRE(cond, ExceptionType, ...)                                  \
  do {                                                                        \
    if (!(cond)) throw ExceptionType(::tilegrad::detail::concat(__VA_ARGS__)); \
  } while (0)

#define TG_CHECK_ARG(cond, ...) TG_REQUIRE(cond, ::tilegrad::InvalidArgument, __VA_ARGS__)

// Internal invariant: a failure is a tilegrad bug; the message carries file and line.
#define TG_ASSERT(cond, ...)                                                              \
  do {                                                                                    \
    if (!(cond))                                                                          \
      ::tilegrad::detail::throw_internal(__FILE__, __LINE__,                              \
                                         ::tilegrad::detail::concat(#cond " ", __VA_ARGS__)); \
  } while (0)
