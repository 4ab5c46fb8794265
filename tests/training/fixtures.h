// Test helpers for the training suite: temporary folders, RGBA fixtures, dataset folders written on the fly,
// and small trainer configurations that run in seconds on the CPU.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_support.h"
#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/model.h"

namespace tilegrad::test {

// Writes a w x h PNG with `channels` (3 or 4) whose pixel (x, y) channel c is pattern_byte(x, y, c).
void write_pattern_png(const std::string& path, int width, int height, int channels);
std::uint8_t pattern_byte(int x, int y, int c);

// A transforms-style dataset: `frames` RGBA PNGs of w x h on a ring of cameras around the origin.
// split: true writes transforms_train.json (all but the last frame) + transforms_test.json (the last);
// false writes one transforms.json.
void write_transforms_dataset(const std::string& folder, int frames, int width, int height, bool split);

// A pinhole camera at the origin looking down +z (OpenCV axes), principal point at the centre.
raster::Camera centered_camera(int width, int height, float focal);

// A configuration for seconds-long runs on the default-scene datasets: 600 random points, SH degree 1,
// densification every 40 iterations from 40 on, an opacity reset at 120.
training::TrainConfig tiny_config(int iterations, Device device = Device::Cpu);
// The same configuration on `ranks` ranks (simulated or GPUs) in the given mode.
training::TrainConfig with_ranks(training::TrainConfig c, int ranks, training::Parallelism mode);

// The default scene as a NeRF-synthetic dataset of size x size images (12 train and 4 test views), written once
// per size and test binary; returns its folder. tiny_scene_dataset() is the 32 x 32 one.
const std::string& scene_dataset(int size);
const std::string& tiny_scene_dataset();
training::TrainingDataset load_scene(int size, Device device = Device::Cpu);

// A model of n Gaussians (SH degree 1) on the CPU whose every array holds pseudo-random values in [-0.5, 0.5).
training::GaussianModel random_model(std::size_t n, std::uint64_t seed = 1);
// Rows [first, first + count) of every array of a host model, with its Adam step and parameter version.
training::GaussianModel model_rows(const training::GaussianModel& model, std::size_t first, std::size_t count);
// Every array of a model (parameters, moments, statistics) on the host.
std::vector<std::vector<float>> model_arrays(const training::GaussianModel& model);
// True when both models have the same bits in every array and the same Adam step; otherwise reports the first
// array that differs.
::testing::AssertionResult identical_models(const training::GaussianModel& a, const training::GaussianModel& b);


}  // namespace tilegrad::test
