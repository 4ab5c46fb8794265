// CUDA resampling (undistortion, resizing, masks) and the masked loss against the CPU reference, and a GPU
// training run on a distorted capture. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "../rasterizer/lens_fixtures.h"
#include "fixtures.h"
#include "test_support.h"
#include "tilegrad/training/lens_capture.h"
#include "tilegrad/training/loss.h"
#include "tilegrad/training/trainer.h"
#include "tilegrad/training/undistort.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {

std::vector<std::uint8_t> random_rgba(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(std::size_t(w) * h * 4);
  for (std::size_t i = 0; i < v.size(); i += 4) {
    v[i + 3] = std::uint8_t(128 + rng() % 128);
    for (int c = 0; c < 3; ++c) v[i + std::size_t(c)] = std::uint8_t(rng() % (v[i + 3] + 1u));
  }
  return v;
}

}  // namespace

// Same per-pixel function on both devices: the GPU's fused multiply-adds and math library move a few values by
// one unit and may flip the validity of pixels whose samples sit on the image border; nothing else differs.
TEST(UndistortCuda, ResamplingMatchesCpuAndIsDeterministic) {
  TG_REQUIRE_CUDA();
  const int w = int(test::scaled(640)), h = int(test::scaled(480));
  raster::Camera cam = test::centered_camera(w, h, 0.8f * w);
  const std::vector<std::uint8_t> source = random_rgba(w, h, 1);
  std::vector<std::uint8_t> mask(std::size_t(w) * h, 255);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w / 5; ++x) mask[std::size_t(y) * w + x] = 0;
  for (const raster::Lens& lens : test::every_distorted_lens()) {
    for (const Interpolation interp : {Interpolation::Bicubic, Interpolation::Bilinear}) {
      ResolutionOptions o;
      o.undistort = UndistortMode::Full;
      o.interpolation = interp;
      o.width = w / 3;  // undistort and shrink at once: 3 x 3 samples per pixel
      const ImagePlan plan = plan_image(cam, lens, o, true);
      const View<const std::uint8_t> src(source.data(), source.size(), Device::Cpu), msk(mask.data(), mask.size(), Device::Cpu);
      const ResampledImage cpu = resample_image(plan, src, msk, Device::Cpu);
      const ResampledImage gpu = resample_image(plan, src, msk, Device::Cuda);
      const ResampledImage again = resample_image(plan, src, msk, Device::Cuda);
      const std::vector<std::uint8_t> a = cpu.rgba.to_vector(), b = gpu.rgba.to_vector();
      const std::vector<std::uint8_t> va = cpu.valid.to_vector(), vb = gpu.valid.to_vector();
      ASSERT_EQ(a.size(), b.size());
      ASSERT_EQ(va.size(), vb.size());
      std::size_t differ = 0, flipped = 0;
      for (std::size_t p = 0; p < va.size(); ++p) {
        if (va[p] != vb[p]) {
          ++flipped;
          continue;
        }
        for (int c = 0; c < 4; ++c) {
          const int d = std::abs(int(a[4 * p + std::size_t(c)]) - int(b[4 * p + std::size_t(c)]));
          EXPECT_LE(d, 1) << raster::to_string(lens.model) << " pixel " << p;
          differ += d > 0;
        }
      }
      EXPECT_LT(double(flipped), 1e-3 * double(va.size())) << raster::to_string(lens.model);
      EXPECT_LT(double(differ), 0.01 * double(a.size())) << raster::to_string(lens.model);
      EXPECT_EQ(gpu.rgba.to_vector(), again.rgba.to_vector());
      EXPECT_EQ(gpu.valid.to_vector(), again.valid.to_vector());
    }
  }
}

TEST(UndistortCuda, MaskedLossMatchesCpu) {
  TG_REQUIRE_CUDA();
  const int w = 83, h = 57;
  const std::vector<float> image = test::random_floats(std::size_t(w) * h * 3, 3, -0.1f, 1.1f);
  const std::vector<std::uint8_t> target = random_rgba(w, h, 4);
  std::vector<std::uint8_t> valid(std::size_t(w) * h, 1);
  for (std::size_t p = 0; p < valid.size(); p += 3) valid[p] = 0;
  std::vector<float> grads[2], values[2];
  for (const Device d : {Device::Cpu, Device::Cuda}) {
    const Buffer<float> img = Buffer<float>::from(image, d);
    const Buffer<std::uint8_t> tgt = Buffer<std::uint8_t>::from(target, d), val = Buffer<std::uint8_t>::from(valid, d);
    Buffer<float> grad(image.size(), d), v(4, d);
    ImageLoss loss(d);
    ImagePair pair;
    pair.width = w;
    pair.height = h;
    pair.image = img.view();
    pair.target = tgt.view();
    pair.valid = val.view();
    pair.valid_pixels = valid.size() - (valid.size() + 2) / 3;
    loss.backward(pair, grad.view(), v.view());
    grads[d == Device::Cuda] = grad.to_vector();
    values[d == Device::Cuda] = v.to_vector();
  }
  double num = 0, den = 0;
  for (std::size_t i = 0; i < grads[0].size(); ++i) {
    num += (grads[1][i] - grads[0][i]) * (grads[1][i] - grads[0][i]);
    den += grads[0][i] * grads[0][i];
    if (!valid[i / 3]) {
      EXPECT_EQ(grads[1][i], 0.0f);
    }
  }
  EXPECT_LT(std::sqrt(num / den), 1e-4);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(values[1][std::size_t(k)], values[0][std::size_t(k)], 1e-5);
}

// A fisheye capture trains on the GPU: the loader undistorts on the device, training improves the test PSNR.
TEST(UndistortCuda, FisheyeCaptureTrainsOnTheGpu) {
  TG_REQUIRE_CUDA();
  test::TempDir dir;
  CaptureOptions c;
  c.views.width = c.views.height = 48;
  c.views.train_views = 16;
  c.views.test_views = 4;
  c.views.camera_distance = 3.2f;
  c.views.device = Device::Cuda;
  c.focal = 40;
  c.lens = test::make_lens(raster::LensModel::OpenCVFisheye, {0.03, -0.01, 0.002, 0});
  c.points = 1000;
  write_lens_capture(dir.file("fisheye"), make_default_scene(), c);
  DatasetOptions o;
  o.path = dir.file("fisheye");
  o.device = Device::Cuda;
  o.undistort = UndistortMode::Full;
  const TrainingDataset data = load_dataset(o);
  ASSERT_FALSE(data.test.empty());
  // Under compute-sanitizer (TILEGRAD_TEST_SCALE=small) 40 iterations run every kernel of a step; learning is
  // checked at the normal scale.
  const bool small = test::scaled(16) < 16;
  TrainConfig config = test::tiny_config(small ? 40 : 300);
  config.device = Device::Cuda;
  Trainer trainer(config, data);
  trainer.initialize();
  const double before = trainer.evaluate(data.test).psnr;
  trainer.run({});
  const double after = trainer.evaluate(data.test).psnr;
  std::printf("fisheye capture on the GPU: test PSNR %.2f -> %.2f dB\n", before, after);
  ASSERT_TRUE(std::isfinite(after));
  if (!small) EXPECT_GT(after, before + 5.0);
}
