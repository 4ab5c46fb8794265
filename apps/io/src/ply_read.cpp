// PLY element data: binary (either byte order, fixed-size rows read in batches) and ascii, into typed columns.
#include <cstring>
#include <limits>
#include <type_traits>

#include "io_util.h"
#include "ply_internal.h"

namespace tilegrad::io {

namespace {

using internal::ByteStream;
using internal::fail;
using internal::load_scalar;
using internal::quote;
using internal::visit_ply_type;

constexpr std::size_t kBatchBytes = std::size_t(1) << 20;  // rows decoded per batch of fixed-size binary data
constexpr std::size_t kMaxAsciiToken = 128;                // longer "numbers" are malformed input

PlyValues empty_values(PlyType type) {
  return visit_ply_type(type, [](auto x) { return PlyValues(std::vector<decltype(x)>{}); });
}

class DataReader {
 public:
  DataReader(ByteStream& in, PlyHeader header, const PlyFilter& keep)
      : m_in(in), m_keep(keep), m_little(header.format == PlyFormat::BinaryLittleEndian) {
    m_data.source = in.name();
    m_data.header = std::move(header);
  }

  PlyData read() {
    for (const PlyElement& e : m_data.header.elements) {
      m_element = &e;
      PlyElementData out;
      out.name = e.name;
      out.count = e.count;
      std::vector<PlyColumn*> columns = make_columns(e, out);
      if (m_data.header.format == PlyFormat::Ascii) {
        read_ascii(e, columns);
      } else {
        read_binary(e, columns);
      }
      m_data.elements.push_back(std::move(out));
    }
    return std::move(m_data);
  }

 private:
  template <class... Args>
  [[noreturn]] void error_at(std::uint64_t row, const PlyProperty& p, const Args&... args) {
    fail(m_in.name(), "element ", quote(m_element->name), ", row ", row, ", property ", quote(p.name), ": ", args...);
  }

  // One column per kept property (null for skipped ones), parallel to the element's properties.
  std::vector<PlyColumn*> make_columns(const PlyElement& e, PlyElementData& out) {
    std::vector<bool> kept(e.properties.size());
    for (std::size_t i = 0; i < e.properties.size(); ++i) {
      kept[i] = !m_keep || m_keep(e, e.properties[i]);
      if (!kept[i]) continue;
      out.names.push_back(e.properties[i].name);
      out.columns.push_back(PlyColumn{empty_values(e.properties[i].type), {}});
      if (e.properties[i].is_list) out.columns.back().offsets.push_back(0);
    }
    std::vector<PlyColumn*> columns(e.properties.size(), nullptr);
    for (std::size_t i = 0, k = 0; i < e.properties.size(); ++i)
      if (kept[i]) columns[i] = &out.columns[k++];
    return columns;
  }

  // Called only once the count has been checked against the bytes left, so the reservation is bounded.
  void reserve(const PlyElement& e, const std::vector<PlyColumn*>& columns) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (!columns[i]) continue;
      if (e.properties[i].is_list) {
        columns[i]->offsets.reserve(static_cast<std::size_t>(e.count) + 1);
      } else {
        std::visit([&](auto& v) { v.reserve(static_cast<std::size_t>(e.count)); }, columns[i]->values);
      }
    }
  }

  void check_count(const PlyElement& e, std::uint64_t min_row_bytes, std::uint64_t slack) {
    if (min_row_bytes == 0 || e.count <= (m_in.remaining() + slack) / min_row_bytes) return;
    fail(m_in.name(), "element ", quote(e.name), " declares ", e.count, " rows of at least ", min_row_bytes,
         " bytes, but only ", m_in.remaining(), " bytes of data remain (truncated file or corrupt count)");
  }

  // ---- binary ----

  void read_binary(const PlyElement& e, const std::vector<PlyColumn*>& columns) {
    std::uint64_t min_row = 0;
    bool fixed = true;
    for (const PlyProperty& p : e.properties) {
      min_row += ply_type_size(p.is_list ? p.count_type : p.type);
      fixed = fixed && !p.is_list;
    }
    if (min_row == 0) return;  // an element without properties has no data
    check_count(e, min_row, 0);
    reserve(e, columns);
    if (fixed) {
      read_fixed_rows(e, columns, static_cast<std::size_t>(min_row));
    } else {
      for (std::uint64_t row = 0; row < e.count; ++row)
        for (std::size_t i = 0; i < e.properties.size(); ++i) read_binary_value(row, e.properties[i], columns[i]);
    }
  }

  void read_fixed_rows(const PlyElement& e, const std::vector<PlyColumn*>& columns, std::size_t row_bytes) {
    bool any_kept = false;
    for (PlyColumn* c : columns) any_kept = any_kept || c;
    if (!any_kept) {
      if (!m_in.skip(e.count * row_bytes)) truncated(e);
      return;
    }
    const std::size_t batch_rows = std::max<std::size_t>(1, kBatchBytes / row_bytes);
    std::vector<unsigned char> batch(batch_rows * row_bytes);
    for (std::uint64_t done = 0; done < e.count;) {
      const std::size_t rows = static_cast<std::size_t>(std::min<std::uint64_t>(batch_rows, e.count - done));
      if (!m_in.read(batch.data(), rows * row_bytes)) truncated(e);
      std::size_t offset = 0;
      for (std::size_t i = 0; i < e.properties.size(); ++i) {
        const PlyType type = e.properties[i].type;
        if (columns[i]) {
          visit_ply_type(type, [&](auto x) {
            using T = decltype(x);
            auto& v = std::get<std::vector<T>>(columns[i]->values);
            const std::size_t first = v.size();
            v.resize(first + rows);
            const unsigned char* in = &batch[offset];
            if (m_little == internal::kHostLittleEndian) {  // the common case: a plain strided copy
              for (std::size_t r = 0; r < rows; ++r) std::memcpy(&v[first + r], in + r * row_bytes, sizeof(T));
            } else {
              for (std::size_t r = 0; r < rows; ++r) v[first + r] = load_scalar<T>(in + r * row_bytes, m_little);
            }
          });
        }
        offset += ply_type_size(type);
      }
      done += rows;
    }
  }

  [[noreturn]] void truncated(const PlyElement& e) {
    fail(m_in.name(), "element ", quote(e.name), ": unexpected end of file (truncated data)");
  }

  template <class T>
  T read_binary_scalar(std::uint64_t row, const PlyProperty& p) {
    unsigned char tmp[sizeof(T)];
    if (!m_in.read(tmp, sizeof(T))) error_at(row, p, "unexpected end of file (truncated data)");
    return load_scalar<T>(tmp, m_little);
  }

  void read_binary_value(std::uint64_t row, const PlyProperty& p, PlyColumn* column) {
    if (!p.is_list) {
      visit_ply_type(p.type, [&](auto x) {
        using T = decltype(x);
        const T value = read_binary_scalar<T>(row, p);
        if (column) std::get<std::vector<T>>(column->values).push_back(value);
      });
      return;
    }
    const std::int64_t length = visit_ply_type(p.count_type, [&](auto x) -> std::int64_t {
      using T = decltype(x);
      if constexpr (std::is_integral_v<T>) {
        return static_cast<std::int64_t>(read_binary_scalar<T>(row, p));
      } else {
        return 0;  // the header parser only admits integer length types
      }
    });
    if (length < 0) error_at(row, p, "negative list length ", length);
    const std::size_t item = ply_type_size(p.type);
    const auto count = static_cast<std::uint64_t>(length);
    if (count > m_in.remaining() / item)
      error_at(row, p, "list length ", count, " does not fit in the ", m_in.remaining(), " bytes left");
    if (!column) {
      m_in.skip(count * item);
      return;
    }
    m_items.resize(static_cast<std::size_t>(count * item));
    if (!m_in.read(m_items.data(), m_items.size())) error_at(row, p, "unexpected end of file (truncated list)");
    visit_ply_type(p.type, [&](auto x) {
      using T = decltype(x);
      auto& v = std::get<std::vector<T>>(column->values);
      for (std::size_t k = 0; k < count; ++k) v.push_back(load_scalar<T>(&m_items[k * item], m_little));
      column->offsets.push_back(v.size());
    });
  }

  // ---- ascii ----

  void read_ascii(const PlyElement& e, const std::vector<PlyColumn*>& columns) {
    if (e.properties.empty()) return;
    // Every value takes at least one character and one separator (the last one may end the file).
    check_count(e, 2 * e.properties.size(), 1);
    reserve(e, columns);
    for (std::uint64_t row = 0; row < e.count; ++row)
      for (std::size_t i = 0; i < e.properties.size(); ++i) read_ascii_value(row, e.properties[i], columns[i]);
  }

  std::string_view next_token(std::uint64_t row, const PlyProperty& p) {
    int c = m_in.get();
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') c = m_in.get();
    if (c < 0) error_at(row, p, "unexpected end of file (the header declares ", m_element->count, " rows)");
    m_token.clear();
    while (c >= 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') {
      if (m_token.size() == kMaxAsciiToken) error_at(row, p, "value ", quote(m_token), " is too long");
      m_token.push_back(static_cast<char>(c));
      c = m_in.get();
    }
    return m_token;
  }

  template <class T>
  T parse_ascii(std::uint64_t row, const PlyProperty& p, PlyType type) {
    const std::string_view token = next_token(row, p);
    if constexpr (std::is_integral_v<T>) {
      std::int64_t v = 0;
      if (!internal::parse_int64(token, v)) error_at(row, p, quote(token), " is not an integer");
      if (v < std::int64_t(std::numeric_limits<T>::min()) || v > std::int64_t(std::numeric_limits<T>::max()))
        error_at(row, p, "value ", v, " is out of range for type ", ply_type_name(type));
      return static_cast<T>(v);
    } else {
      double v = 0;
      if (!internal::parse_double(token, v)) error_at(row, p, quote(token), " is not a number (or is out of range)");
      if constexpr (std::is_same_v<T, float>) {
        return internal::to_float(v);
      } else {
        return v;
      }
    }
  }

  void read_ascii_value(std::uint64_t row, const PlyProperty& p, PlyColumn* column) {
    if (!p.is_list) {
      visit_ply_type(p.type, [&](auto x) {
        using T = decltype(x);
        const T value = parse_ascii<T>(row, p, p.type);
        if (column) std::get<std::vector<T>>(column->values).push_back(value);
      });
      return;
    }
    const std::int64_t length = visit_ply_type(p.count_type, [&](auto x) -> std::int64_t {
      using T = decltype(x);
      if constexpr (std::is_integral_v<T>) {
        return static_cast<std::int64_t>(parse_ascii<T>(row, p, p.count_type));
      } else {
        return 0;  // the header parser only admits integer length types
      }
    });
    if (length < 0) error_at(row, p, "negative list length ", length);
    if (static_cast<std::uint64_t>(length) > (m_in.remaining() + 1) / 2)
      error_at(row, p, "list length ", length, " does not fit in the ", m_in.remaining(), " bytes left");
    visit_ply_type(p.type, [&](auto x) {
      using T = decltype(x);
      for (std::int64_t k = 0; k < length; ++k) {
        const T value = parse_ascii<T>(row, p, p.type);
        if (column) std::get<std::vector<T>>(column->values).push_back(value);
      }
      if (column) column->offsets.push_back(std::get<std::vector<T>>(column->values).size());
    });
  }

  ByteStream& m_in;
  const PlyFilter& m_keep;
  bool m_little;
  PlyData m_data;
  const PlyElement* m_element = nullptr;
  std::vector<unsigned char> m_items;
  std::string m_token;
};

PlyData read_stream(ByteStream& in, const PlyFilter& keep) {
  PlyHeader header = internal::parse_ply_header(in);
  return DataReader(in, std::move(header), keep).read();
}

}  // namespace

PlyHeader read_ply_header(const std::string& path) {
  ByteStream in = ByteStream::open(path);
  return internal::parse_ply_header(in);
}

PlyData read_ply(const std::string& path, const PlyFilter& keep) {
  ByteStream in = ByteStream::open(path);
  return read_stream(in, keep);
}

PlyData read_ply_bytes(std::string_view bytes, const std::string& name, const PlyFilter& keep) {
  ByteStream in(bytes, name);
  return read_stream(in, keep);
}

}  // namespace tilegrad::io
