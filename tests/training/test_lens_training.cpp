// End to end through real lenses: synthetic captures of the default scene through each distortion family
// (radial-tangential from transforms.json keys, fisheye and FOV from COLMAP models) train as well as pinhole
// renders of the same views: the test PSNR on common pinhole test views is within 0.5 dB of training on the
// pinhole renders (ignoring the lenses costs 0.9 to 1.9 dB here), and the undistort -> distort round trip of
// every view's resampling stays below 0.01 px.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "../rasterizer/lens_fixtures.h"
#include "fixtures.h"
#include "tilegrad/training/default_scene.h"
#include "tilegrad/training/lens_capture.h"
#include "tilegrad/training/trainer.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {

constexpr int kSize = 32;
constexpr float kFocal = 32.0f;  // about 53 degrees across: distortion reaches well into the corners

struct Capture {
  const char* name;
  raster::Lens lens;
  CaptureFormat format;
};

std::vector<Capture> captures() {
  using M = raster::LensModel;
  return {
      {"pinhole", test::make_lens(M::Pinhole, {}), CaptureFormat::NerfSynthetic},
      {"opencv", test::make_lens(M::OpenCV, {-0.2, 0.03, 0.001, -0.0015}), CaptureFormat::Transforms},
      {"opencv_fisheye", test::make_lens(M::OpenCVFisheye, {0.03, -0.01, 0.002, 0.0}), CaptureFormat::Colmap},
      {"fov", test::make_lens(M::Fov, {0.7}), CaptureFormat::Colmap},
  };
}

// The captures, written once per test binary: every one has the same 24 train views; the pinhole one also has 6
// test views on a ring the others never see.
const std::string& capture_folder() {
  static test::TempDir dir;
  static const bool written = [] {
    const raster::Gaussians scene = make_default_scene();
    for (const Capture& c : captures()) {
      CaptureOptions o;
      o.views.width = o.views.height = kSize;
      o.views.train_views = 24;
      o.views.test_views = c.format == CaptureFormat::NerfSynthetic ? 6 : 0;
      o.views.camera_distance = 3.2f;
      o.focal = kFocal;
      o.lens = c.lens;
      o.format = c.format;
      o.supersample = 4;
      o.points = 1500;
      write_lens_capture(dir.file(c.name), scene, o);
    }
    return true;
  }();
  (void)written;
  return dir.path();
}

// Short runs from the capture's points without densification: the same model size for every capture.
TrainConfig config() {
  TrainConfig c = test::tiny_config(300);
  c.densify.until = 0;
  return c;
}

}  // namespace

TEST(LensTraining, EveryDistortionFamilyTrainsAsWellAsPinholeRenders) {
  DatasetOptions ro;
  ro.path = capture_folder() + "/pinhole";
  const TrainingDataset reference = load_dataset(ro);
  ASSERT_EQ(reference.test.size(), 6u);
  std::map<std::string, double> psnr;
  for (const Capture& c : captures()) {
    DatasetOptions o;
    o.path = capture_folder() + "/" + c.name;
    o.test_every = 0;  // every view trains; all are evaluated on the pinhole test views
    const TrainingDataset data = load_dataset(o);
    ASSERT_EQ(data.train.size(), 24u) << c.name;
    EXPECT_EQ(data.notes.empty(), std::string(c.name) == "pinhole") << c.name;
    Trainer trainer(config(), data);
    trainer.initialize();
    trainer.run({});
    psnr[c.name] = trainer.evaluate(reference.test).psnr;
    std::printf("%-15s %zu views of %dx%d: test PSNR %.2f dB\n", c.name, data.train.size(),
                data.train[0].camera.width, data.train[0].camera.height, psnr[c.name]);
  }
  EXPECT_GT(psnr["pinhole"], 20.0);  // a trained scene, so that the comparison means something
  for (const auto& [name, value] : psnr) EXPECT_GT(value, psnr["pinhole"] - 0.5) << name;
}

// The resampling of every view of every capture: the source position of each valid target pixel, undistorted by
// the lens's Newton inverse, lands back on the pixel to within 0.01 px.
TEST(LensTraining, UndistortDistortRoundTripIsBelowOneHundredthOfAPixel) {
  for (const Capture& c : captures()) {
    DatasetOptions o;
    o.path = capture_folder() + "/" + c.name;
    o.test_every = 0;
    for (const UndistortMode mode : {UndistortMode::Crop, UndistortMode::Full}) {
      o.undistort = mode;
      const TrainingDataset data = load_dataset(o);
      const TrainingView& v = data.train.front();
      const ImagePlan& p = v.plan;
      const std::vector<std::uint8_t> valid = v.valid.to_vector();
      double worst = 0;
      for (int y = 0; y < p.target.height; ++y)
        for (int x = 0; x < p.target.width; ++x) {
          if (!valid.empty() && !valid[std::size_t(y) * p.target.width + x]) continue;
          const Vec2<double> ray{{(x + 0.5 - p.target.cx) / p.target.fx, (y + 0.5 - p.target.cy) / p.target.fy}};
          const Vec2<double> d = raster::distort_point(p.coefficients, ray);
          Vec2<double> back;
          ASSERT_TRUE(raster::undistort_point(p.coefficients, d, back)) << c.name;
          worst = std::max(worst, std::hypot(p.target.fx * (back[0] - ray[0]), p.target.fy * (back[1] - ray[1])));
        }
      EXPECT_LT(worst, 0.01) << c.name << " " << to_string(mode);
    }
  }
}
