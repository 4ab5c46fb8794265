// Which kind of dataset a folder holds, and where its camera files are; the loaders are in transforms.h and
// colmap.h. The training code builds its splits on this: a NeRF-synthetic folder brings its own train/val/test
// files, a single transforms.json or a COLMAP scene is split by the caller.
#pragma once
#include <string>

namespace tilegrad::io {

enum class DatasetKind {
  Colmap,         // sparse/0/ or sparse/ with cameras.{bin,txt}; images in images/
  NerfSynthetic,  // transforms_train.json (+ transforms_val.json, transforms_test.json when present)
  Transforms,     // a single transforms.json (instant-ngp / nerfstudio style)
};

const char* to_string(DatasetKind kind);

struct DatasetLayout {
  DatasetKind kind = DatasetKind::Transforms;
  std::string root;              // the folder itself
  std::string transforms;        // Transforms: the file
  std::string transforms_train;  // NerfSynthetic: the files ("" for val/test when absent)
  std::string transforms_val;
  std::string transforms_test;
  std::string colmap_sparse;  // Colmap: the model folder (images are in root/images)
};

// Looks in order for a COLMAP model, transforms_train.json, transforms.json (the order the 3DGS trainer uses,
// so a folder with both a COLMAP model and transforms files is read the same way there). IoError naming the
// folder and what was looked for when it holds none of them, or is not a folder.
DatasetLayout find_dataset(const std::string& folder);

}  // namespace tilegrad::io
