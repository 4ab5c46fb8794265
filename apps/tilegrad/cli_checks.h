// Validators for numeric options whose messages print readable bounds ("--iters: must be >= 1, got 0"), in
// place of CLI11's ranges, which print their limits with std::to_string (300 digits for the largest double).
#pragma once
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace tilegrad::cli::checks {

inline std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", x);
  return buf;
}

// A validator accepting numbers for which ok(value) holds; `rule` completes "must be ...".
template <class Ok>
CLI::Validator number(Ok ok, const std::string& rule) {
  return CLI::Validator(
      [ok, rule](std::string& input) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value)) return "'" + input + "' is not a number";
        if (!ok(value)) return "must be " + rule + ", got " + input;
        return {};
      },
      rule);
}

inline CLI::Validator positive() {
  return number([](double v) { return std::isfinite(v) && v > 0; }, "> 0");
}
inline CLI::Validator non_negative() {
  return number([](double v) { return std::isfinite(v) && v >= 0; }, ">= 0");
}
inline CLI::Validator range(double lo, double hi) {
  return number([lo, hi](double v) { return v >= lo && v <= hi; }, "in [" + show(lo) + ", " + show(hi) + "]");
}

}  // namespace tilegrad::cli::checks
