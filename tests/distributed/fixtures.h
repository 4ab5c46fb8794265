// Helpers of the distributed suites: a small scene dataset (64 x 64: 4 x 4 tiles, so regions of several ranks
// differ), short training configurations, model comparisons.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/model.h"

namespace tilegrad::test {

// The default scene as a NeRF-synthetic dataset of width x height images (12 train, 4 test views), written once
// per size and test binary; returns its folder.
const std::string& scene_dataset(int size);
training::TrainingDataset load_scene(int size, Device device = Device::Cpu);

// A configuration for seconds-long runs: 600 random points, SH degree 1, densification every 40 iterations from
// 40 on, an opacity reset at 120.
training::TrainConfig small_config(int iterations, Device device = Device::Cpu);

// Every array of a model (parameters, moments, statistics) on the host.
std::vector<std::vector<float>> model_arrays(const training::GaussianModel& model);
// True when both models have the same bits in every array and the same Adam step; otherwise reports the first
// array that differs.
::testing::AssertionResult identical_models(const training::GaussianModel& a, const training::GaussianModel& b);

std::string file_bytes(const std::string& path);

}  // namespace tilegrad::test
