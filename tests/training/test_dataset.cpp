// Datasets into training images: splits, premultiplied RGBA on the device, downscaling, SfM points, the scene
// extent, and bad datasets stopping with the file and the problem named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "fixtures.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/image.h"
#include "tilegrad/training/dataset.h"

using namespace tilegrad;
using namespace tilegrad::training;
using test::TempDir;

namespace {

training::TrainingDataset load(const std::string& path, bool eval = false, int downscale = 1) {
  DatasetOptions o;
  o.path = path;
  o.eval = eval;
  o.downscale = downscale;
  return load_dataset(o);
}

// The stored byte of a pattern pixel: colour times alpha (the decoded floats), rounded, never above alpha.
std::uint8_t premultiplied(int x, int y, int c) {
  const std::uint8_t alpha = test::pattern_byte(x, y, 3);
  if (c == 3) return alpha;
  const double a = double(float(alpha) / 255.0f), v = double(float(test::pattern_byte(x, y, c)) / 255.0f);
  return std::min(std::uint8_t(std::lround(v * a * 255.0)), alpha);
}

// Runs f, which must throw an IoError whose message contains every part.
template <class F>
void expect_io_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "expected an IoError";
  } catch (const IoError& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << "\nmissing: " << p;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected an IoError, got: " << e.what();
  }
}

const char* kCameras = "1 PINHOLE 10 6 20 22 5 3\n2 SIMPLE_PINHOLE 8 6 15 4 3\n";
const char* kImages =
    "7 0.70710678118654752440 0 0 0.70710678118654752440 1 2 3 1 b.png\n\n3 1 0 0 0 0 0 4 2 a.png\n\n";
const char* kPoints = "0 1 2 3 10 20 30 0.5\n1 -1 0 5 255 0 128 0.25\n";

void write_colmap(const TempDir& dir, const char* cameras) {
  dir.write("scene/sparse/0/cameras.txt", cameras);
  dir.write("scene/sparse/0/images.txt", kImages);
  dir.write("scene/sparse/0/points3D.txt", kPoints);
  test::write_pattern_png(dir.file("scene/images/a.png"), 8, 6, 3);
  test::write_pattern_png(dir.file("scene/images/b.png"), 10, 6, 3);
}

}  // namespace

TEST(Dataset, NerfSyntheticSplitIntoPremultipliedImages) {
  TempDir dir;
  test::write_transforms_dataset(dir.path(), 5, 8, 6, true);
  const TrainingDataset d = load(dir.path());
  EXPECT_EQ(d.kind, io::DatasetKind::NerfSynthetic);
  ASSERT_EQ(d.train.size(), 4u);
  ASSERT_EQ(d.test.size(), 1u);
  EXPECT_TRUE(d.has_alpha);
  EXPECT_EQ(d.points.size(), 0u);
  const TrainingView& v = d.train[1];
  EXPECT_EQ(v.camera.width, 8);
  EXPECT_EQ(v.camera.height, 6);
  ASSERT_EQ(v.image.size(), 8u * 6 * 4);
  EXPECT_EQ(v.image.device(), Device::Cpu);
  const std::vector<std::uint8_t> px = v.image.to_vector();
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(px[(std::size_t(y) * 8 + x) * 4 + c], premultiplied(x, y, c)) << x << "," << y;
  // The extent: 1.1 x the largest distance of a train camera from their centroid (cameras i = 0..3 at
  // (4 cos(2 pi i / 5), 4 sin(2 pi i / 5), 1)).
  double c[3] = {0, 0, 0}, r = 0;
  for (int i = 0; i < 4; ++i) {
    c[0] += 4 * std::cos(2 * M_PI * i / 5) / 4;
    c[1] += 4 * std::sin(2 * M_PI * i / 5) / 4;
  }
  for (int i = 0; i < 4; ++i)
    r = std::max(r, std::hypot(4 * std::cos(2 * M_PI * i / 5) - c[0], 4 * std::sin(2 * M_PI * i / 5) - c[1]));
  EXPECT_NEAR(d.extent, 1.1 * r, 1e-4);
  EXPECT_NEAR(d.center[0], c[0], 1e-5);
  EXPECT_NEAR(d.center[2], 1.0, 1e-5);
}

TEST(Dataset, DownscaleAveragesBlocksAndScalesIntrinsics) {
  TempDir dir;
  test::write_transforms_dataset(dir.path(), 3, 9, 6, true);  // odd width: the last column is dropped
  const TrainingDataset full = load(dir.path()), half = load(dir.path(), false, 2);
  const TrainingView &f = full.train[0], &h = half.train[0];
  EXPECT_EQ(h.camera.width, 4);
  EXPECT_EQ(h.camera.height, 3);
  EXPECT_FLOAT_EQ(h.camera.fx, f.camera.fx / 2);
  EXPECT_FLOAT_EQ(h.camera.cx, f.camera.cx / 2);
  const std::vector<std::uint8_t> hp = h.image.to_vector();
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 4; ++c) {
        double sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) {
            const int sx = 2 * x + dx, sy = 2 * y + dy;
            const double a = test::pattern_byte(sx, sy, 3) / 255.0;
            sum += c == 3 ? a : test::pattern_byte(sx, sy, c) / 255.0 * a;
          }
        EXPECT_NEAR(hp[(std::size_t(y) * 4 + x) * 4 + c], sum / 4 * 255, 0.51) << x << "," << y << "," << c;
      }
}

TEST(Dataset, SingleTransformsFileHoldsOutEveryEighthWithEval) {
  TempDir dir;
  test::write_transforms_dataset(dir.path(), 9, 4, 4, false);
  const TrainingDataset all = load(dir.path());
  EXPECT_EQ(all.kind, io::DatasetKind::Transforms);
  EXPECT_EQ(all.train.size(), 9u);
  EXPECT_TRUE(all.test.empty());
  const TrainingDataset held = load(dir.path(), true);
  ASSERT_EQ(held.test.size(), 2u);
  EXPECT_EQ(held.train.size(), 7u);
  EXPECT_EQ(held.test[0].name, "images/frame_0");
  EXPECT_EQ(held.test[1].name, "images/frame_8");
}

TEST(Dataset, ColmapSceneBringsPointsAndOpaqueImages) {
  TempDir dir;
  write_colmap(dir, kCameras);
  const TrainingDataset d = load(dir.file("scene"));
  EXPECT_EQ(d.kind, io::DatasetKind::Colmap);
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_EQ(d.points.positions[3], -1.0f);
  EXPECT_EQ(d.points.colors[3], 255);
  EXPECT_FALSE(d.has_alpha);
  // COLMAP scenes hold out every 8th image (sorted by name) by default, the benchmark convention.
  ASSERT_EQ(d.test.size(), 1u);
  EXPECT_EQ(d.test[0].name, "a.png");
  ASSERT_EQ(d.train.size(), 1u);
  const std::vector<std::uint8_t> px = d.train[0].image.to_vector();
  EXPECT_EQ(px[3], 255);  // opaque
  EXPECT_EQ(px[0], test::pattern_byte(0, 0, 0));
  EXPECT_TRUE(d.train[0].valid.empty());  // every pixel counts
  DatasetOptions all;
  all.path = dir.file("scene");
  all.test_every = 0;
  const TrainingDataset everything = load_dataset(all);
  EXPECT_EQ(everything.train.size(), 2u);
  EXPECT_TRUE(everything.test.empty());
}

TEST(Dataset, BadDatasetsNameTheFileAndTheProblem) {
  {
    TempDir dir;
    test::write_transforms_dataset(dir.path(), 4, 8, 6, false);
    std::filesystem::remove(dir.file("images/frame_2.png"));
    expect_io_error([&] { load(dir.path()); }, {"transforms.json", "frame_2"});
  }
  {
    TempDir dir;
    test::write_transforms_dataset(dir.path(), 3, 8, 6, false);
    dir.write("images/frame_1.png", "this is not a PNG");
    expect_io_error([&] { load(dir.path()); }, {"frame_1.png"});
  }
  {
    TempDir dir;  // an image whose size differs from the others' camera (w/h given in the file)
    test::write_transforms_dataset(dir.path(), 3, 8, 6, false);
    std::string json = "{\"camera_angle_x\": 0.8, \"w\": 8, \"h\": 6, \"frames\": [";
    json += "{\"file_path\": \"images/frame_0\", \"transform_matrix\": [[1,0,0,0],[0,1,0,0],[0,0,1,4],[0,0,0,1]]},";
    json += "{\"file_path\": \"images/big\", \"transform_matrix\": [[1,0,0,0],[0,1,0,0],[0,0,1,4],[0,0,0,1]]}]}";
    dir.write("transforms.json", json);
    test::write_pattern_png(dir.file("images/big.png"), 9, 6, 4);
    expect_io_error([&] { load(dir.path()); }, {"big"});
  }
  {
    TempDir dir;  // --eval with a single image: nothing left to train on
    test::write_transforms_dataset(dir.path(), 1, 8, 6, false);
    expect_io_error([&] { load(dir.path(), true); }, {"transforms.json", "no training images"});
  }
  {
    TempDir dir;
    write_colmap(dir, "1 THIN_PRISM_FISHEYE 10 6 20 22 5 3 0.1 0 0 0 0 0 0 0\n2 SIMPLE_PINHOLE 8 6 15 4 3\n");
    expect_io_error([&] { load(dir.file("scene")); }, {"THIN_PRISM_FISHEYE", "not supported"});
  }
  {
    TempDir dir;
    test::write_transforms_dataset(dir.path(), 2, 8, 6, false);
    expect_io_error([&] { load(dir.path(), false, 16); }, {"frame_0", "downscale 16"});
  }
  {
    TempDir dir;
    expect_io_error([&] { load(dir.path()); }, {dir.path(), "no dataset found"});
  }
}

// A capture with lens distortion trains on pinhole views: the COLMAP undistorter's camera, resampled images, a
// note saying so; full-frame mode keeps the borders with a valid-pixel mask.
TEST(Dataset, DistortedCapturesBecomePinholeViews) {
  TempDir dir;
  write_colmap(dir, "1 OPENCV 40 30 32 32 20 15 -0.3 0.05 0.001 0\n2 SIMPLE_RADIAL_FISHEYE 32 24 24 16 12 0.02\n");
  test::write_pattern_png(dir.file("scene/images/a.png"), 32, 24, 3);
  test::write_pattern_png(dir.file("scene/images/b.png"), 40, 30, 3);
  DatasetOptions o;
  o.path = dir.file("scene");
  o.test_every = 0;
  const TrainingDataset d = load_dataset(o);
  ASSERT_EQ(d.train.size(), 2u);
  for (const TrainingView& v : d.train) {
    const raster::Camera expected = raster::undistorted_camera(v.plan.source, v.plan.lens);
    EXPECT_EQ(v.camera.width, expected.width) << v.name;
    EXPECT_EQ(v.camera.height, expected.height) << v.name;
    EXPECT_EQ(v.camera.fx, expected.fx) << v.name;
    // COLMAP's principal point, moved to whole-pixel offsets from the source's (in phase with its grid).
    EXPECT_LE(std::abs(v.camera.cx - expected.cx), 0.5f) << v.name;
    EXPECT_EQ(v.camera.cx - v.plan.source.cx, std::round(v.camera.cx - v.plan.source.cx)) << v.name;
    EXPECT_EQ(v.camera.cy - v.plan.source.cy, std::round(v.camera.cy - v.plan.source.cy)) << v.name;
    EXPECT_EQ(v.image.size(), std::size_t(v.camera.width) * v.camera.height * 4);
    // The pose is the file's: the trained scene stays in the input's world frame.
    EXPECT_EQ(v.camera.translation[2], v.plan.source.translation[2]);
  }
  EXPECT_EQ(d.train[0].plan.lens.model, raster::LensModel::SimpleRadialFisheye);
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_NE(d.notes[0].find("OPENCV"), std::string::npos) << d.notes[0];
  EXPECT_NE(d.notes[0].find("crop"), std::string::npos) << d.notes[0];
  o.undistort = UndistortMode::Full;
  const TrainingDataset full = load_dataset(o);
  std::size_t masked = 0;
  for (const TrainingView& v : full.train) {
    const std::size_t pixels = std::size_t(v.camera.width) * v.camera.height;
    if (!v.valid.empty()) masked += pixels - v.valid_pixels;
    EXPECT_EQ(v.valid.empty() ? pixels : v.valid.size(), pixels);
  }
  EXPECT_GT(masked, 0u);
}

TEST(Dataset, CaptureWorkflowOptions) {
  TempDir dir;
  write_colmap(dir, kCameras);
  test::write_pattern_png(dir.file("scene/images_2/a.png"), 4, 3, 3);
  test::write_pattern_png(dir.file("scene/images_2/b.png"), 5, 3, 3);
  DatasetOptions o;
  o.path = dir.file("scene");
  o.test_every = 0;
  // Another image folder: downscaled copies scale their cameras.
  o.images = "images_2";
  TrainingDataset d = load_dataset(o);
  ASSERT_EQ(d.train.size(), 2u);
  EXPECT_EQ(d.train[1].camera.width, 5);
  EXPECT_FLOAT_EQ(d.train[1].camera.fx, 10.0f);
  EXPECT_FLOAT_EQ(d.train[1].camera.fy, 11.0f);
  // A width keeps the aspect ratio; the default cap (here 6 pixels) scales wider images and says so.
  o.images.clear();
  o.width = 5;
  d = load_dataset(o);
  EXPECT_EQ(d.train[1].camera.width, 5);
  EXPECT_EQ(d.train[1].camera.height, 3);
  EXPECT_EQ(d.train[1].image.size(), 5u * 3u * 4u);
  EXPECT_TRUE(d.notes.empty());
  o.width = 0;
  o.max_width = 9;
  d = load_dataset(o);
  EXPECT_EQ(d.train[0].camera.width, 8);  // narrow enough already
  EXPECT_EQ(d.train[1].camera.width, 9);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("1 view(s) are wider than 9 pixels"), std::string::npos) << d.notes[0];
  // The near plane reaches every view.
  o.near_plane = 0.5f;
  d = load_dataset(o);
  EXPECT_EQ(d.train[0].camera.near_plane, 0.5f);
  o.near_plane = 0.01f;
  // Test views every N-th image.
  o.max_width = 0;
  o.test_every = 2;
  d = load_dataset(o);
  ASSERT_EQ(d.test.size(), 1u);
  EXPECT_EQ(d.test[0].name, "a.png");
  o.test_every = 0;
  // Masks: pixels whose mask is dark do not count.
  io::Image mask(10, 6, 1);
  for (int y = 0; y < 6; ++y)
    for (int x = 5; x < 10; ++x) mask.at(x, y, 0) = 1.0f;
  std::filesystem::create_directories(dir.file("scene/masks"));
  io::write_png(dir.file("scene/masks/b.png.png"), mask);
  io::write_png(dir.file("scene/masks/a.png"), io::Image(8, 6, 1));  // <stem>.png: nothing counts in a
  o.masks = "masks";
  expect_io_error([&] { load_dataset(o); }, {"a.png", "mask covers it all"});
  io::Image full(8, 6, 1);
  for (float& p : full.pixels) p = 1.0f;
  io::write_png(dir.file("scene/masks/a.png"), full);
  d = load_dataset(o);
  EXPECT_TRUE(d.train[0].valid.empty());
  ASSERT_EQ(d.train[1].valid.size(), 60u);
  EXPECT_EQ(d.train[1].valid_pixels, 30u);
  EXPECT_EQ(d.train[1].valid.to_vector()[4], 0);
  EXPECT_EQ(d.train[1].valid.to_vector()[5], 1);
  // Missing images: an error listing them, or left out with a note.
  o.masks.clear();
  std::filesystem::remove(dir.file("scene/images/a.png"));
  expect_io_error([&] { load_dataset(o); }, {"images.txt", "1 of 2 frames have no image file", "a.png"});
  o.skip_missing_images = true;
  d = load_dataset(o);
  ASSERT_EQ(d.train.size(), 1u);
  EXPECT_EQ(d.skipped, std::vector<std::string>{"a.png"});
}
