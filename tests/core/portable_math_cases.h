// Inputs for the portable exp and log tests: every range a float reaches, and the special values.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tilegrad::test {

// Arguments of exp: a fine sweep of [-104, 89] (underflow to overflow), random values, and the edges.
inline std::vector<float> exp_arguments() {
  std::vector<float> x;
  for (float v = -104.0f; v <= 89.0f; v += 0.000731f) x.push_back(v);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> tiny(-1e-3f, 1e-3f);
  for (int i = 0; i < 100000; ++i) x.push_back(tiny(rng));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 88.72283f, 88.7228394f, 88.72284f, -87.3365f, -103.97207f,
                  -103.9721f, 200.0f, -200.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  return x;
}

// Arguments of log: positive floats from the smallest subnormal to the largest (every 4093rd bit pattern),
// densely near 1, and the edges.
inline std::vector<float> log_arguments() {
  std::vector<float> x;
  for (std::uint32_t bits = 1; bits < 0x7F800000u; bits += 4093) {
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    x.push_back(v);
  }
  for (float v = 0.5f; v < 2.0f; v += 1.0f / 65536) x.push_back(v);
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, -1.0f, 1.0f, inf, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  return x;
}

}  // namespace tilegrad::test
