// Test helpers for the file readers: blank PNGs, a byte builder for binary fixtures, and a check that
// a call fails with an IoError whose message names what is wrong.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

#include "test_support.h"
#include "tilegrad/core/error.h"

namespace tilegrad::test {

// Writes a w x h RGB PNG into `dir` (creating parent folders) and returns its path.
std::string write_png(const TempDir& dir, const std::string& relative, int width, int height);

// Builds binary content: scalars in little- or big-endian order, and raw text.
class Bytes {
 public:
  template <class T>
  Bytes& le(T value) {
    return put(value, false);
  }
  template <class T>
  Bytes& be(T value) {
    return put(value, true);
  }
  Bytes& text(std::string_view s) {
    m_data.append(s.data(), s.size());
    return *this;
  }
  const std::string& str() const { return m_data; }

 private:
  template <class T>
  Bytes& put(T value, bool big_endian) {
    char tmp[sizeof(T)];
    std::memcpy(tmp, &value, sizeof(T));
    if (big_endian) std::reverse(tmp, tmp + sizeof(T));  // the test machines are little-endian
    m_data.append(tmp, sizeof(T));
    return *this;
  }
  std::string m_data;
};

// Runs f, which must throw IoError; returns its message (empty, with a test failure, otherwise).
template <class F>
std::string io_error_of(F&& f) {
  try {
    f();
  } catch (const IoError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected IoError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected IoError, nothing was thrown";
  return "";
}

// Expects f to throw an IoError whose message contains every part.
#define EXPECT_IO_ERROR(call, ...)                                                                                     \
  do {                                                                                                                 \
    const std::string tg_message = ::tilegrad::test::io_error_of([&] { (void)(call); });                               \
    for (const char* tg_part : std::initializer_list<const char*>{__VA_ARGS__})                                        \
      EXPECT_NE(tg_message.find(tg_part), std::string::npos) << "message: " << tg_message << "\nmissing: " << tg_part; \
  } while (0)

}  // namespace tilegrad::test
