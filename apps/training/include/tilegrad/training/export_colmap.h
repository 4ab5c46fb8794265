// A dataset as training sees it (pinhole views after undistortion and the resolution choice) written as a COLMAP
// scene with PINHOLE cameras, for tools that take only pinhole captures (the original 3DGS, gsplat).
#pragma once
#include <cstddef>
#include <string>

#include "tilegrad/core/device.h"
#include "tilegrad/training/dataset.h"

namespace tilegrad::training {

struct ExportOptions {
  bool text = false;            // sparse model as .txt instead of .bin
  Device device = Device::Cpu;  // where images are resampled
};

struct ExportSummary {
  std::size_t images = 0, cameras = 0, masks = 0, points = 0;
  double load_seconds = 0;   // decoding and resampling (the part training shares)
  double write_seconds = 0;  // PNG encoding and writing
};

// Writes every view of `dataset` (train, then test; images loaded or not) to
//   <out>/images/<name>.png           the view's image (RGB, or RGBA when the dataset has alpha)
//   <out>/masks/<name>.png.png        for views with pixels that do not count (0 there, 255 elsewhere; COLMAP's
//                                     mask naming, read back by --masks masks)
//   <out>/sparse/0/{cameras,images,points3D}.{bin,txt}
// <name> is the frame's file name without its extension (its path with '/' as '_' where file names repeat).
// One PINHOLE camera per distinct intrinsics; poses as loaded (the input's world frame); the dataset's points.
ExportSummary write_colmap_dataset(const TrainingDataset& dataset, const std::string& out, const ExportOptions& options);

}  // namespace tilegrad::training
