// Counter-based random numbers: a pure function of (seed, stream, counter), identical on the CPU and the GPU.
// Every random choice of training (view order, backgrounds, split offsets, initial points) is addressed by its
// iteration and index instead of drawn from a generator's running state, so a run resumed from a checkpoint
// makes the same choices as an uninterrupted one and no generator state has to be saved.
#pragma once
#include <cstdint>

#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad::training {

// What a random number is for: distinct streams never share numbers for the same seed and counter.
enum class RandomStream : std::uint64_t {
  ViewOrder = 1,
  Background = 2,
  SplitOffsets = 3,
  InitialPoints = 4,
  SceneContent = 5,
};

// The SplitMix64 finaliser: a bijective mix with full avalanche.
TG_HD TG_INLINE std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

TG_HD TG_INLINE std::uint64_t random_bits(std::uint64_t seed, RandomStream stream, std::uint64_t counter) {
  return mix64(mix64(seed ^ mix64(static_cast<std::uint64_t>(stream))) ^ counter);
}

// Uniform in [0, 1) with 24 random bits (exactly representable floats).
TG_HD TG_INLINE float random_uniform(std::uint64_t seed, RandomStream stream, std::uint64_t counter) {
  return static_cast<float>(random_bits(seed, stream, counter) >> 40) * (1.0f / 16777216.0f);
}

// Standard normal (Box-Muller on the uniforms of counters 2c and 2c + 1).
TG_HD TG_INLINE float random_normal(std::uint64_t seed, RandomStream stream, std::uint64_t counter) {
  const float u1 = 1.0f - random_uniform(seed, stream, 2 * counter);  // (0, 1]: the log stays finite
  const float u2 = random_uniform(seed, stream, 2 * counter + 1);
  return sqrt(-2.0f * log(u1)) * cos(6.2831853071795865f * u2);
}

}  // namespace tilegrad::training
