// The accumulation strategies: how contributions (parameter id, D floats) reach a shared gradient array.
#pragma once
#include <array>
#include <string>
#include <string_view>

namespace tilegrad {

enum class Accumulation {
  Atomic,          // atomicAdd per component (the baseline): order-dependent float rounding
  WarpAggregated,  // equal ids combined inside a warp first, then one atomicAdd per group and component
  SortReduce,      // private records, radix sort on the id bits in use, exact segmented sum: deterministic
  Owned,           // records already grouped per parameter (known offsets), exact segmented sum: deterministic
};

inline constexpr std::array<Accumulation, 4> kAllAccumulations = {
    Accumulation::Atomic, Accumulation::WarpAggregated, Accumulation::SortReduce, Accumulation::Owned};

const char* to_string(Accumulation a);
// Accepts atomic, warp, warp-aggregated, sort, sort-reduce, owned (case-insensitive, '_' or '-').
Accumulation parse_accumulation(std::string_view name);
// SortReduce and Owned: for the same contributions, bitwise identical results on every run, in any input order,
// on the CPU and CUDA alike (the exact segmented sum).
constexpr bool is_deterministic(Accumulation a) {
  return a == Accumulation::SortReduce || a == Accumulation::Owned;
}

}  // namespace tilegrad
