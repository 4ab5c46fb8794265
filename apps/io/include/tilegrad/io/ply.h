// Generic PLY reading (ascii, binary little- and big-endian): the header, and element data as typed columns.
// The Gaussian, point-cloud and mesh readers are built on it. Every problem is an IoError naming the file and
// what is wrong (header line, element, row, property).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tilegrad::io {

enum class PlyFormat { Ascii, BinaryLittleEndian, BinaryBigEndian };

// The eight PLY scalar types; the order matches the alternatives of PlyValues.
enum class PlyType { Int8, Uint8, Int16, Uint16, Int32, Uint32, Float32, Float64 };

std::size_t ply_type_size(PlyType type);
// Name as written in headers by the original PLY tools and plyfile: char uchar short ushort int uint float double.
const char* ply_type_name(PlyType type);
bool ply_type_is_integer(PlyType type);
// Accepts both spellings ("uchar" / "uint8", "float" / "float32", ...); false for anything else.
bool parse_ply_type(std::string_view name, PlyType& type);
const char* ply_format_name(PlyFormat format);

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::Float32;  // of the value, or of each list item
  bool is_list = false;
  PlyType count_type = PlyType::Uint8;  // of a list's length (lists only; an integer type)
};

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
  const PlyProperty* find(std::string_view property) const;
};

struct PlyHeader {
  PlyFormat format = PlyFormat::BinaryLittleEndian;
  std::vector<std::string> comments;  // text after "comment "
  std::vector<std::string> obj_info;  // text after "obj_info "
  std::vector<PlyElement> elements;   // in file order
  const PlyElement* find(std::string_view element) const;
};

using PlyValues = std::variant<std::vector<std::int8_t>, std::vector<std::uint8_t>, std::vector<std::int16_t>,
                               std::vector<std::uint16_t>, std::vector<std::int32_t>, std::vector<std::uint32_t>,
                               std::vector<float>, std::vector<double>>;

// One property's values over all rows of an element, in the type the file stores. For a list property the
// items of all rows are concatenated and row r's items are values[offsets[r] .. offsets[r + 1]).
struct PlyColumn {
  PlyValues values;
  std::vector<std::uint64_t> offsets;  // lists only: rows + 1 entries

  PlyType type() const { return static_cast<PlyType>(values.index()); }
  bool is_list() const { return !offsets.empty(); }
  std::size_t size() const;               // number of values (list items for lists)
  double as_double(std::size_t i) const;  // value i converted (exact for every PLY type)
  // The stored vector when the column holds T, else null.
  template <class T>
  const std::vector<T>* get_if() const {
    return std::get_if<std::vector<T>>(&values);
  }
};

struct PlyElementData {
  std::string name;
  std::uint64_t count = 0;
  std::vector<std::string> names;  // kept properties, in header order
  std::vector<PlyColumn> columns;  // parallel to names
  const PlyColumn* find(std::string_view property) const;
};

struct PlyData {
  std::string source;  // the file name used in messages
  PlyHeader header;
  std::vector<PlyElementData> elements;  // every element of the header, with only the kept columns
  const PlyElementData* find(std::string_view element) const;
};

// Chooses the properties to keep (the rest are parsed and discarded); an empty filter keeps everything.
using PlyFilter = std::function<bool(const PlyElement& element, const PlyProperty& property)>;

// Reads the header only.
PlyHeader read_ply_header(const std::string& path);
// Reads a whole file. Counts in the header are checked against the file size before anything is allocated;
// truncated data, malformed values, list lengths that are negative or do not fit, and values out of their
// type's range are IoErrors naming the element, row and property. NaN and infinities are returned as read:
// the format readers on top decide what is valid.
PlyData read_ply(const std::string& path, const PlyFilter& keep = {});
// The same for bytes in memory; `name` is used in messages.
PlyData read_ply_bytes(std::string_view bytes, const std::string& name, const PlyFilter& keep = {});

}  // namespace tilegrad::io
