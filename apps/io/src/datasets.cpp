// Dataset kind detection for a folder.
#include "tilegrad/io/datasets.h"

#include <filesystem>

#include "io_util.h"
#include "tilegrad/io/colmap.h"

namespace tilegrad::io {

namespace fs = std::filesystem;

const char* to_string(DatasetKind kind) {
  switch (kind) {
    case DatasetKind::Colmap: return "colmap";
    case DatasetKind::NerfSynthetic: return "nerf-synthetic";
    case DatasetKind::Transforms: break;
  }
  return "transforms";
}

namespace {
std::string existing(const std::string& folder, const char* name) {
  std::error_code ec;
  const fs::path p = fs::path(folder) / name;
  return fs::is_regular_file(p, ec) ? p.string() : "";
}
}  // namespace

DatasetLayout find_dataset(const std::string& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) internal::fail(folder, "not a folder (expected a dataset folder)");
  DatasetLayout layout;
  layout.root = folder;
  layout.colmap_sparse = find_colmap_sparse_dir(folder);
  if (!layout.colmap_sparse.empty()) {
    layout.kind = DatasetKind::Colmap;
    return layout;
  }
  layout.transforms_train = existing(folder, "transforms_train.json");
  if (!layout.transforms_train.empty()) {
    layout.kind = DatasetKind::NerfSynthetic;
    layout.transforms_val = existing(folder, "transforms_val.json");
    layout.transforms_test = existing(folder, "transforms_test.json");
    return layout;
  }
  layout.transforms = existing(folder, "transforms.json");
  if (!layout.transforms.empty()) {
    layout.kind = DatasetKind::Transforms;
    return layout;
  }
  internal::fail(folder,
                 "no dataset found: looked for sparse/0/ or sparse/ (COLMAP), transforms_train.json "
                 "(NeRF-synthetic) and transforms.json");
}

}  // namespace tilegrad::io
