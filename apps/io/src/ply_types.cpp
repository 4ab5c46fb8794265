// PLY type names and sizes, and the look-up helpers of the PLY data structures.
#include <algorithm>

#include "ply_internal.h"

namespace tilegrad::io {

namespace {

struct TypeInfo {
  PlyType type;
  const char* name;   // the original PLY spelling, which plyfile and the 3DGS tools write
  const char* alias;  // the sized spelling
  std::size_t size;
};

constexpr TypeInfo kTypes[] = {
    {PlyType::Int8, "char", "int8", 1},        {PlyType::Uint8, "uchar", "uint8", 1},
    {PlyType::Int16, "short", "int16", 2},     {PlyType::Uint16, "ushort", "uint16", 2},
    {PlyType::Int32, "int", "int32", 4},       {PlyType::Uint32, "uint", "uint32", 4},
    {PlyType::Float32, "float", "float32", 4}, {PlyType::Float64, "double", "float64", 8},
};

const TypeInfo& info(PlyType type) { return kTypes[static_cast<int>(type)]; }

template <class Range>
auto find_by_name(const Range& range, std::string_view name) -> decltype(&*range.begin()) {
  const auto it = std::find_if(range.begin(), range.end(), [&](const auto& x) { return x.name == name; });
  return it == range.end() ? nullptr : &*it;
}

}  // namespace

std::size_t ply_type_size(PlyType type) { return info(type).size; }
const char* ply_type_name(PlyType type) { return info(type).name; }
bool ply_type_is_integer(PlyType type) { return type != PlyType::Float32 && type != PlyType::Float64; }

bool parse_ply_type(std::string_view name, PlyType& type) {
  for (const TypeInfo& t : kTypes) {
    if (name == t.name || name == t.alias) {
      type = t.type;
      return true;
    }
  }
  return false;
}

const char* ply_format_name(PlyFormat format) {
  switch (format) {
    case PlyFormat::Ascii: return "ascii";
    case PlyFormat::BinaryBigEndian: return "binary_big_endian";
    case PlyFormat::BinaryLittleEndian: break;
  }
  return "binary_little_endian";
}

const PlyProperty* PlyElement::find(std::string_view property) const { return find_by_name(properties, property); }
const PlyElement* PlyHeader::find(std::string_view element) const { return find_by_name(elements, element); }
const PlyElementData* PlyData::find(std::string_view element) const { return find_by_name(elements, element); }

const PlyColumn* PlyElementData::find(std::string_view property) const {
  const auto it = std::find(names.begin(), names.end(), property);
  return it == names.end() ? nullptr : &columns[static_cast<std::size_t>(it - names.begin())];
}

std::size_t PlyColumn::size() const {
  return std::visit([](const auto& v) { return v.size(); }, values);
}

double PlyColumn::as_double(std::size_t i) const {
  return std::visit([i](const auto& v) { return static_cast<double>(v[i]); }, values);
}

}  // namespace tilegrad::io
