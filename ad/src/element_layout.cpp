// Building the element layouts (see element_layout.h): counting sorts over the connectivity, so every list is
// filled in (term, element, local index) order and the Owned sums have a fixed order.
#include "element_layout.h"

#include <algorithm>
#include <limits>

#include "gather_owner.h"
#include "tilegrad/core/error.h"

namespace tilegrad::element_layout {
namespace {

constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();

void check_fits(std::uint64_t n, std::uint64_t limit, const char* what) {
  TG_REQUIRE(n <= limit, Unsupported, "element problem too large: ", n, " ", what, " (at most ", limit, ")");
}

// Prefix sums of counts[0..n) into offsets[0..n]; checks that the total fits 32 bits.
std::vector<std::uint32_t> offsets_from_counts(const std::vector<std::uint64_t>& counts, const char* what) {
  std::vector<std::uint32_t> offsets(counts.size() + 1, 0);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    total += counts[i];
    check_fits(total, kMax32, what);
    offsets[i + 1] = static_cast<std::uint32_t>(total);
  }
  return offsets;
}

// Record starts of each term: element e of term t owns [starts[t] + e * size_t, ... + size_t).
std::vector<std::uint64_t> record_starts(const std::vector<TermShape>& terms, int dim, bool packed) {
  std::vector<std::uint64_t> starts(terms.size() + 1, 0);
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const std::uint64_t n = static_cast<std::uint64_t>(terms[t].arity) * dim;
    const std::uint64_t per_element = packed ? n * (n + 1) / 2 : n;
    starts[t + 1] = starts[t] + per_element * (terms[t].elements->size() / terms[t].arity);
  }
  check_fits(starts.back(), element_gather::kMaxStart, "element record values");
  return starts;
}

}  // namespace

Sources build_vertex_sources(std::size_t num_vertices, int dim, const std::vector<TermShape>& terms) {
  Sources s;
  s.term_records = record_starts(terms, dim, false);
  std::vector<std::uint64_t> counts(num_vertices, 0);
  for (const TermShape& t : terms)
    for (std::uint32_t v : *t.elements) ++counts[v];
  s.offsets = offsets_from_counts(counts, "vertex contributions");
  s.sources.resize(s.offsets.back());
  std::vector<std::uint32_t> cursor(s.offsets.begin(), s.offsets.end() - 1);
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const int k = terms[t].arity;
    const std::uint64_t n = static_cast<std::uint64_t>(k) * dim;
    const std::vector<std::uint32_t>& el = *terms[t].elements;
    for (std::size_t e = 0; e < el.size() / k; ++e)
      for (int i = 0; i < k; ++i)
        s.sources[cursor[el[e * k + i]]++] = element_gather::encode(s.term_records[t] + e * n, k, i, 0);
  }
  return s;
}

BlockPattern build_block_pattern(std::size_t num_vertices, int dim, const std::vector<TermShape>& terms) {
  BlockPattern p;
  // Candidate neighbours of each vertex row (with repeats), then sorted and made unique per row. Every row
  // holds its diagonal block, so a vertex in no element still has a diagonal entry (0, or 1 when fixed).
  std::vector<std::uint64_t> counts(num_vertices, 1);
  for (const TermShape& t : terms)
    for (std::uint32_t v : *t.elements) counts[v] += static_cast<std::uint64_t>(t.arity);
  const std::vector<std::uint32_t> candidate_offsets = offsets_from_counts(counts, "vertex pairs");
  std::vector<std::uint32_t> candidates(candidate_offsets.back());
  std::vector<std::uint32_t> cursor(candidate_offsets.begin(), candidate_offsets.end() - 1);
  for (std::size_t v = 0; v < num_vertices; ++v) candidates[cursor[v]++] = static_cast<std::uint32_t>(v);
  for (const TermShape& t : terms) {
    const int k = t.arity;
    const std::vector<std::uint32_t>& el = *t.elements;
    for (std::size_t e = 0; e < el.size() / k; ++e)
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) candidates[cursor[el[e * k + i]]++] = el[e * k + j];
  }
  const auto rows = static_cast<std::ptrdiff_t>(num_vertices);
  std::vector<std::uint64_t> unique_counts(num_vertices, 0);
#pragma omp parallel for schedule(dynamic, 1024) if (rows > 4096)
  for (std::ptrdiff_t v = 0; v < rows; ++v) {
    const auto begin = candidates.begin() + candidate_offsets[v], end = candidates.begin() + candidate_offsets[v + 1];
    std::sort(begin, end);
    unique_counts[v] = static_cast<std::uint64_t>(std::unique(begin, end) - begin);
  }
  p.row_offsets = offsets_from_counts(unique_counts, "Hessian blocks");
  check_fits(std::uint64_t(p.row_offsets.back()) * dim * dim, kMax32, "Hessian entries");
  p.columns.resize(p.row_offsets.back());
  p.rows.resize(p.row_offsets.back());
#pragma omp parallel for schedule(dynamic, 1024) if (rows > 4096)
  for (std::ptrdiff_t v = 0; v < rows; ++v) {
    std::copy_n(candidates.begin() + candidate_offsets[v], unique_counts[v], p.columns.begin() + p.row_offsets[v]);
    std::fill_n(p.rows.begin() + p.row_offsets[v], unique_counts[v], static_cast<std::uint32_t>(v));
  }

  // Element -> block map.
  p.element_blocks.resize(terms.size());
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const int k = terms[t].arity;
    const std::vector<std::uint32_t>& el = *terms[t].elements;
    const auto count = static_cast<std::ptrdiff_t>(el.size() / k);
    std::vector<std::uint32_t>& blocks = p.element_blocks[t];
    blocks.resize(el.size() * k);
#pragma omp parallel for schedule(static) if (count > 4096)
    for (std::ptrdiff_t e = 0; e < count; ++e) {
      for (int i = 0; i < k; ++i) {
        const std::uint32_t v = el[e * k + i];
        const auto begin = p.columns.begin() + p.row_offsets[v], end = p.columns.begin() + p.row_offsets[v + 1];
        for (int j = 0; j < k; ++j)
          blocks[(e * k + i) * k + j] =
              static_cast<std::uint32_t>(std::lower_bound(begin, end, el[e * k + j]) - p.columns.begin());
      }
    }
  }

  // Owners are the blocks on or above the diagonal; each also writes its transpose, so only half the sources are
  // stored and read. A local pair (i, j) feeds the owner of block (v_i, v_j) when v_i < v_j, and the diagonal
  // block when v_i == v_j (both orders: an element that repeats a vertex adds both). Sources are listed in
  // (term, element, i, j) order, the fixed order of the sums.
  std::vector<std::uint32_t> owner_of(p.columns.size(), UINT32_MAX);
  for (std::uint32_t b = 0; b < p.columns.size(); ++b) {
    if (p.columns[b] < p.rows[b]) continue;
    owner_of[b] = static_cast<std::uint32_t>(p.owner_blocks.size());
    p.owner_blocks.push_back(b);
    const std::uint32_t w = p.columns[b];
    const auto begin = p.columns.begin() + p.row_offsets[w], end = p.columns.begin() + p.row_offsets[w + 1];
    const auto transposed = std::lower_bound(begin, end, p.rows[b]) - p.columns.begin();
    p.owner_transposed.push_back(static_cast<std::uint32_t>(transposed));
  }
  Sources& s = p.sources;
  s.term_records = record_starts(terms, dim, true);
  std::vector<std::uint64_t> owner_counts(p.owner_blocks.size(), 0);
  for (const auto& blocks : p.element_blocks)
    for (std::uint32_t b : blocks)
      if (owner_of[b] != UINT32_MAX) ++owner_counts[owner_of[b]];
  s.offsets = offsets_from_counts(owner_counts, "Hessian block contributions");
  s.sources.resize(s.offsets.back());
  std::vector<std::uint32_t> cursor_of(s.offsets.begin(), s.offsets.end() - 1);
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const int k = terms[t].arity;
    const std::uint64_t n = static_cast<std::uint64_t>(k) * dim, packed = n * (n + 1) / 2;
    const std::vector<std::uint32_t>& blocks = p.element_blocks[t];
    for (std::size_t e = 0; e < blocks.size() / (k * k); ++e)
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
          const std::uint32_t owner = owner_of[blocks[(e * k + i) * k + j]];
          if (owner == UINT32_MAX) continue;
          s.sources[cursor_of[owner]++] = element_gather::encode(s.term_records[t] + e * packed, k, i, j);
        }
  }
  return p;
}

ScalarPattern expand_blocks(const BlockPattern& blocks, int dim) {
  ScalarPattern s;
  const std::size_t vertices = blocks.row_offsets.size() - 1, d = static_cast<std::size_t>(dim);
  s.row_offsets.resize(vertices * d + 1);
  s.columns.resize(blocks.columns.size() * d * d);
  s.diagonal.resize(vertices * d);
  const auto rows = static_cast<std::ptrdiff_t>(vertices);
#pragma omp parallel for schedule(static) if (rows > 4096)
  for (std::ptrdiff_t v = 0; v < rows; ++v) {
    const std::uint32_t begin = blocks.row_offsets[v], end = blocks.row_offsets[v + 1];
    const std::size_t degree = end - begin;
    const auto self = std::lower_bound(blocks.columns.begin() + begin, blocks.columns.begin() + end,
                                       static_cast<std::uint32_t>(v)) -
                      (blocks.columns.begin() + begin);
    for (std::size_t a = 0; a < d; ++a) {
      const std::size_t row = v * d + a, first = d * d * begin + a * d * degree;
      s.row_offsets[row] = static_cast<std::uint32_t>(first);
      s.diagonal[row] = static_cast<std::uint32_t>(first + self * d + a);
      for (std::size_t k = 0; k < degree; ++k)
        for (std::size_t b = 0; b < d; ++b)
          s.columns[first + k * d + b] = static_cast<std::uint32_t>(blocks.columns[begin + k] * d + b);
    }
  }
  s.row_offsets[vertices * d] = static_cast<std::uint32_t>(blocks.columns.size() * d * d);
  return s;
}

}  // namespace tilegrad::element_layout
