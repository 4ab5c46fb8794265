// Checked column access for the PLY format readers.
#include "ply_columns.h"

#include "io_util.h"

namespace tilegrad::io::internal {

const PlyElementData& required_element(const PlyData& ply, std::string_view name, std::string_view hint) {
  const PlyElementData* e = ply.find(name);
  if (!e) fail(ply.source, "no ", quote(name), " element", hint);
  return *e;
}

const PlyColumn* scalar_column(const PlyElementData& e, std::string_view name, const std::string& file) {
  const PlyColumn* c = e.find(name);
  if (!c) return nullptr;
  if (c->is_list()) fail(file, e.name, " property ", quote(name), " is a list, expected a scalar");
  if (c->size() != e.count)
    fail(file, e.name, " property ", quote(name), " holds ", c->size(), " values for ", e.count, " rows");
  return c;
}

const PlyColumn& required_scalar(const PlyElementData& e, std::string_view name, const std::string& file,
                                 std::string_view hint) {
  const PlyColumn* c = scalar_column(e, name, file);
  if (!c) fail(file, "missing ", e.name, " property ", quote(name), hint);
  return *c;
}

const PlyColumn* list_column(const PlyElementData& e, std::string_view name, const std::string& file) {
  const PlyColumn* c = e.find(name);
  if (!c) return nullptr;
  if (!c->is_list()) fail(file, "element ", quote(e.name), ": property ", quote(name), " must be a list");
  bool ok = c->offsets.size() == e.count + 1 && c->offsets.front() == 0 && c->offsets.back() == c->size();
  for (std::size_t r = 0; ok && r < e.count; ++r) ok = c->offsets[r] <= c->offsets[r + 1];
  if (!ok) fail(file, "element ", quote(e.name), ": list ", quote(name), " has inconsistent row offsets");
  return c;
}

}  // namespace tilegrad::io::internal
