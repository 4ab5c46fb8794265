// Internal: the connectivity-derived maps of an ElementProblem, built once on the host: the Hessian's block
// pattern and its scalar CSR expansion, the element -> block map of Atomic assembly, and the owners' source
// lists of Owned assembly (vertices for the vector passes, Hessian blocks for the matrix).
#pragma once
#include <cstdint>
#include <vector>

namespace tilegrad::element_layout {

struct TermShape {
  int arity;
  const std::vector<std::uint32_t>* elements;  // [count * arity]
};

// Owner -> sources (encoded as in gather_owner.h), and where each term's records start.
struct Sources {
  std::vector<std::uint32_t> offsets;        // [owners + 1]
  std::vector<std::uint64_t> sources;
  std::vector<std::uint64_t> term_records;   // [terms + 1]: term t's records are [term_records[t], term_records[t+1])
};

// Owners are vertices; each element record holds N = K D values.
Sources build_vertex_sources(std::size_t num_vertices, int dim, const std::vector<TermShape>& terms);

struct BlockPattern {
  std::vector<std::uint32_t> row_offsets;  // [V + 1]: blocks of vertex row v are [row_offsets[v], row_offsets[v+1])
  std::vector<std::uint32_t> columns;      // [B] column vertex of each block, increasing within a row
  std::vector<std::uint32_t> rows;         // [B] row vertex of each block
  std::vector<std::vector<std::uint32_t>> element_blocks;  // per term [E K K]: block of local pair (i, j)
  // Owned assembly: owner o is block owner_blocks[o] (on or above the diagonal) and also writes its transpose,
  // block owner_transposed[o]; its sources read the packed local Hessians of the element records.
  std::vector<std::uint32_t> owner_blocks, owner_transposed;
  Sources sources;
};

BlockPattern build_block_pattern(std::size_t num_vertices, int dim, const std::vector<TermShape>& terms);

// The scalar CSR of the (V D) x (V D) matrix with D x D dense blocks.
struct ScalarPattern {
  std::vector<std::uint32_t> row_offsets, columns, diagonal;
};
ScalarPattern expand_blocks(const BlockPattern& blocks, int dim);

}  // namespace tilegrad::element_layout
