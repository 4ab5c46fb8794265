// Internal pieces of the PLY reader shared by its source files: header parsing and type dispatch.
#pragma once
#include <cstdint>

#include "byte_stream.h"
#include "tilegrad/io/ply.h"

namespace tilegrad::io::internal {

// Parses the header and leaves `in` at the first byte of element data.
PlyHeader parse_ply_header(ByteStream& in);

// Calls f(T{}) with the C++ type of a PLY type.
template <class F>
decltype(auto) visit_ply_type(PlyType type, F&& f) {
  switch (type) {
    case PlyType::Int8: return f(std::int8_t{});
    case PlyType::Uint8: return f(std::uint8_t{});
    case PlyType::Int16: return f(std::int16_t{});
    case PlyType::Uint16: return f(std::uint16_t{});
    case PlyType::Int32: return f(std::int32_t{});
    case PlyType::Uint32: return f(std::uint32_t{});
    case PlyType::Float32: return f(float{});
    case PlyType::Float64: break;
  }
  return f(double{});
}

}  // namespace tilegrad::io::internal
