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

// A configuration for seconds-long CPU runs on the tiny default-scene dataset.
training::TrainConfig tiny_config(int iterations);

// Writes the default scene as a tiny NeRF-synthetic dataset (32 x 32, 12 train and 4 test views) once per
// test binary and returns its folder.
const std::string& tiny_scene_dataset();

}  // namespace tilegrad::test
