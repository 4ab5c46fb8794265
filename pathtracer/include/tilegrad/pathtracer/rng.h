// Counter-based random numbers: a hash of (seed, stream, index, sample, dimension), so any path can be
// replayed exactly in the backward pass, on either backend, without storing state.
#pragma once
#include <cstdint>

#include "tilegrad/core/common.h"

namespace tilegrad::pathtracer {

// PCG output permutation (O'Neill), used as an integer hash.
TG_HD TG_INLINE std::uint32_t hash_u32(std::uint32_t x) {
  const std::uint32_t state = x * 747796405u + 2891336453u;
  const std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

// Odd multiples of 2^-25: 24 significant bits, so float and double see exactly the same number, never 0 or 1.
TG_HD TG_INLINE float unit_from_bits(std::uint32_t h) {
  return static_cast<float>(((h >> 8) << 1) | 1u) * (1.0f / 33554432.0f);
}

// Streams keep the pixel samples and the edge samples apart.
enum class RngStream : std::uint32_t { Pixel = 0x1u, Edge = 0x2u };

// Dimensions of one path: pixel jitter, then per vertex b at kDimVertex + kDimsPerVertex * b. The backward's
// dormant-light sample of vertex b (see estimator.h) uses kDimDormant + kDimsPerVertex * b with the light
// choice and cone numbers, after every vertex's own, so the forward's numbers do not depend on it.
enum RngDim : std::uint32_t {
  kDimPixelX = 0, kDimPixelY = 1, kDimEdgePhi = 0,
  kDimVertex = 2, kDimsPerVertex = 5,
  kDimLightChoice = 0, kDimConeU = 1, kDimConeV = 2, kDimBounceU = 3, kDimBounceV = 4,
  kDimDormant = 32,
};

struct Rng {
  std::uint32_t key;
  TG_HD float uniform(std::uint32_t dim) const { return unit_from_bits(hash_u32(key ^ hash_u32(dim * 0x9E3779B9u + 1u))); }
  TG_HD float vertex(int b, std::uint32_t which) const {
    return uniform(kDimVertex + kDimsPerVertex * static_cast<std::uint32_t>(b) + which);
  }
  TG_HD float dormant(int b, std::uint32_t which) const {
    return uniform(kDimDormant + kDimsPerVertex * static_cast<std::uint32_t>(b) + which);
  }
};

TG_HD TG_INLINE Rng make_rng(std::uint32_t seed, RngStream stream, std::uint32_t index, std::uint32_t sample) {
  std::uint32_t k = hash_u32(seed ^ (static_cast<std::uint32_t>(stream) * 0x85EBCA6Bu));
  k = hash_u32(k ^ index);
  k = hash_u32(k ^ (sample * 0xC2B2AE35u));
  return {k};
}

}  // namespace tilegrad::pathtracer
