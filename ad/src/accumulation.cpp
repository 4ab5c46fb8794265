// Names of the accumulation strategies.
#include "tilegrad/ad/accumulation.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "tilegrad/core/error.h"

namespace tilegrad {

const char* to_string(Accumulation a) {
  switch (a) {
    case Accumulation::Atomic: return "atomic";
    case Accumulation::WarpAggregated: return "warp-aggregated";
    case Accumulation::SortReduce: return "sort-reduce";
    case Accumulation::Owned: return "owned";
  }
  return "?";
}

Accumulation parse_accumulation(std::string_view name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return c == '_' ? '-' : std::tolower(c); });
  if (s == "atomic") return Accumulation::Atomic;
  if (s == "warp" || s == "warp-aggregated" || s == "warpaggregated") return Accumulation::WarpAggregated;
  if (s == "sort" || s == "sort-reduce" || s == "sortreduce") return Accumulation::SortReduce;
  if (s == "owned") return Accumulation::Owned;
  throw InvalidArgument(detail::concat("unknown accumulation strategy '", name,
                                       "' (expected atomic, warp-aggregated, sort-reduce or owned)"));
}

}  // namespace tilegrad
