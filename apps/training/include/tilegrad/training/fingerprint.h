// What a run trains on, recorded in its checkpoints so that a resume on other data is refused: the dataset
// kind, whether images carry alpha (it picks the default background), the number of SfM points, and for every
// train and test view its name, size, intrinsics and pose at the loaded resolution (so the downscale factor and
// the train/test split are covered). The folder's path is not part of it: a moved dataset resumes.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tilegrad/training/dataset.h"

namespace tilegrad::training {

// JSON text.
std::string dataset_fingerprint(const TrainingDataset& dataset);

// Readable differences between two fingerprints ("downscale" shows up as sizes and intrinsics), at most
// max_lines, then a line counting the rest. Empty when they match.
std::vector<std::string> fingerprint_differences(const std::string& saved, const std::string& current,
                                                 std::size_t max_lines = 12);

}  // namespace tilegrad::training
