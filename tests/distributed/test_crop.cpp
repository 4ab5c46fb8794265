// The two facts Gaussian-partitioned training rests on: (1) a tile-aligned crop camera renders the pixels of the
// full render (up to the rounding of the projected centres) and the gradients of the crops of a partition add up
// to the full image's; (2) the loss of an image is the sum of its windows' losses (LossWindow), and so is its
// gradient when every window is computed on a crop with a one-tile halo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "test_support.h"
#include "tilegrad/distributed/partition.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/loss.h"

using namespace tilegrad;
using namespace tilegrad::distributed;

namespace {

constexpr int kWidth = 80, kHeight = 64;  // 5 x 4 tiles

raster::Gaussians random_scene(std::size_t n, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  raster::Gaussians g = raster::Gaussians::allocate(n, 1, Device::Cpu);
  for (std::size_t i = 0; i < n; ++i) {
    // Spread a little beyond the view, so that Gaussians outside a crop reach into it.
    g.means.data()[3 * i] = 1.4f * u(rng);
    g.means.data()[3 * i + 1] = 1.2f * u(rng);
    g.means.data()[3 * i + 2] = 0.6f * u(rng);
    for (int a = 0; a < 3; ++a) g.log_scales.data()[3 * i + a] = -2.6f + 0.6f * u(rng);
    for (int a = 0; a < 4; ++a) g.quats.data()[4 * i + a] = u(rng);
    g.quats.data()[4 * i] += 2.0f;
    g.opacity_logits.data()[i] = 2.0f * u(rng);
    for (int k = 0; k < 12; ++k) g.sh.data()[12 * i + std::size_t(k)] = 0.5f * u(rng);
  }
  return g;
}

raster::Camera view_camera() {
  return raster::Camera::look_at({{0.3f, -0.2f, -3.0f}}, {{0, 0, 0}}, {{0, -1, 0}}, 0.8f, kWidth, kHeight);
}

// The tile rectangles of a 2 x 2 split: columns at tile 2, rows at tile 3 (uneven on purpose).
std::vector<raster::TileRect> four_regions() { return {{0, 0, 2, 3}, {2, 0, 5, 3}, {0, 3, 2, 4}, {2, 3, 5, 4}}; }

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, double(std::fabs(x)));
  return m;
}

}  // namespace

TEST(CropCamera, KeepsTheFullImagesGuardBandAndChecksItsWindow) {
  const raster::Camera full = view_camera();
  const raster::Camera crop = raster::crop_camera(full, 32, 16, 48, 32);
  const raster::ProjectionCamera a = raster::make_projection_camera(full), b = raster::make_projection_camera(crop);
  EXPECT_EQ(a.lim_x, b.lim_x);
  EXPECT_EQ(a.lim_y, b.lim_y);
  EXPECT_EQ(crop.cx, full.cx - 32.0f);
  EXPECT_EQ(crop.cy, full.cy - 16.0f);
  EXPECT_EQ(crop.width, 48);
  EXPECT_THROW(raster::crop_camera(full, 48, 0, 48, 16), InvalidArgument);
  raster::Camera bad = full;
  bad.guard_half_width = -1.0f;
  EXPECT_THROW(raster::validate(bad), InvalidArgument);
}

TEST(CropCamera, RendersTheFullImagesPixelsAndItsGradientsAddUp) {
  const raster::Gaussians g = random_scene(400, 7);
  const raster::Camera full = view_camera();
  raster::Rasterizer rasterizer(Device::Cpu);
  const raster::ForwardOutput whole = rasterizer.forward(g.view(), full);
  const std::vector<float> image = whole.image.to_vector();
  ASSERT_GT(max_abs(image), 0.3);
  const std::vector<float> dl = test::random_floats(image.size(), 11);
  const raster::Gradients reference = rasterizer.backward(whole, g.view(), Buffer<float>::from(dl, Device::Cpu).view());

  std::vector<std::vector<float>> sums;
  for (const Buffer<float>* b : {&reference.means, &reference.log_scales, &reference.quats, &reference.opacity_logits,
                                 &reference.sh, &reference.mean2d})
    sums.emplace_back(b->size(), 0.0f);
  double worst_pixel = 0;
  std::size_t bitwise = 0;
  for (const raster::TileRect& t : four_regions()) {
    const PixelRect p = pixel_rect(t, kWidth, kHeight);
    const raster::Camera crop = raster::crop_camera(full, p.x0, p.y0, p.width(), p.height());
    const raster::ForwardOutput part = rasterizer.forward(g.view(), crop);
    const std::vector<float> pixels = part.image.to_vector();
    std::vector<float> dl_part(pixels.size());
    for (int y = 0; y < p.height(); ++y)
      for (int x = 0; x < p.width(); ++x)
        for (int c = 0; c < 3; ++c) {
          const std::size_t i = (std::size_t(y) * p.width() + x) * 3 + c;
          const std::size_t j = (std::size_t(y + p.y0) * kWidth + (x + p.x0)) * 3 + c;
          worst_pixel = std::max(worst_pixel, double(std::fabs(pixels[i] - image[j])));
          bitwise += pixels[i] == image[j];
          dl_part[i] = dl[j];
        }
    const raster::Gradients gp = rasterizer.backward(part, g.view(), Buffer<float>::from(dl_part, Device::Cpu).view());
    std::size_t k = 0;
    for (const Buffer<float>* b : {&gp.means, &gp.log_scales, &gp.quats, &gp.opacity_logits, &gp.sh, &gp.mean2d}) {
      const std::vector<float> v = b->to_vector();
      for (std::size_t i = 0; i < v.size(); ++i) sums[k][i] += v[i];
      ++k;
    }
  }
  // The centres differ by the rounding of adding the shifted principal point (~1e-5 pixels here).
  std::printf("largest pixel difference %.3g, %zu of %zu values bitwise equal\n", worst_pixel, bitwise, image.size());
  EXPECT_LT(worst_pixel, 2e-5);
  std::size_t k = 0;
  for (const Buffer<float>* b : {&reference.means, &reference.log_scales, &reference.quats,
                                 &reference.opacity_logits, &reference.sh, &reference.mean2d}) {
    const std::vector<float> r = b->to_vector();
    const double scale = max_abs(r);
    ASSERT_GT(scale, 0.0);
    double worst = 0;
    for (std::size_t i = 0; i < r.size(); ++i) worst = std::max(worst, std::fabs(double(sums[k][i]) - r[i]) / scale);
    EXPECT_LT(worst, 2e-4) << "gradient group " << k;
    ++k;
  }
}

namespace {

// The loss of a random image pair (with a valid-pixel mask when `masked`: corners and a band across the regions'
// borders are ignored, as undistortion borders are) against the sum of its windows' losses over a 2 x 2
// partition, each on its crop with a one-tile halo (and the mask's crop). Returns the image's loss values.
std::vector<float> expect_windows_add_up(bool masked) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> image(std::size_t(kWidth) * kHeight * 3);
  std::vector<std::uint8_t> target(std::size_t(kWidth) * kHeight * 4);
  for (float& x : image) x = u(rng);
  for (std::size_t i = 0; i < target.size(); ++i) target[i] = std::uint8_t(rng() % 256);
  for (std::size_t i = 0; i < target.size(); i += 4)  // premultiplied: colour <= alpha
    for (int c = 0; c < 3; ++c) target[i + std::size_t(c)] = std::min(target[i + std::size_t(c)], target[i + 3]);
  std::vector<std::uint8_t> valid(std::size_t(kWidth) * kHeight, 1);
  if (masked)
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x) {
        const float dx = (x - 0.5f * kWidth) / kWidth, dy = (y - 0.5f * kHeight) / kHeight;
        if (dx * dx + dy * dy > 0.2f || (x >= 28 && x < 36)) valid[std::size_t(y) * kWidth + x] = 0;
      }
  const std::size_t valid_pixels = std::size_t(std::count(valid.begin(), valid.end(), std::uint8_t(1)));
  training::ImageLoss loss(Device::Cpu, 0.2f);
  const float background[3] = {0.2f, 0.5f, 1.0f};
  training::ImagePair pair;
  pair.width = kWidth;
  pair.height = kHeight;
  const Buffer<float> image_buffer = Buffer<float>::from(image, Device::Cpu);
  const Buffer<std::uint8_t> target_buffer = Buffer<std::uint8_t>::from(target, Device::Cpu);
  const Buffer<std::uint8_t> valid_buffer = Buffer<std::uint8_t>::from(valid, Device::Cpu);
  pair.image = image_buffer.view();
  pair.target = target_buffer.view();
  if (masked) {
    pair.valid = valid_buffer.view();
    pair.valid_pixels = valid_pixels;
  }
  std::copy_n(background, 3, pair.background);
  Buffer<float> grad(image.size(), Device::Cpu), values(4, Device::Cpu);
  loss.backward(pair, grad.view(), values.view());
  const std::vector<float> full_grad = grad.to_vector(), full_values = values.to_vector();

  std::vector<float> sum_grad(image.size(), 0.0f);
  double sum_values[4] = {0, 0, 0, 0};
  const int tx = 5, ty = 4;
  for (const raster::TileRect& t : four_regions()) {
    const PixelRect owned = pixel_rect(t, kWidth, kHeight);
    const PixelRect r = pixel_rect(grow_region(t, 1, tx, ty), kWidth, kHeight);
    std::vector<float> crop_image;
    std::vector<std::uint8_t> crop_target, crop_valid;
    for (int y = r.y0; y < r.y1; ++y)
      for (int x = r.x0; x < r.x1; ++x) {
        const std::size_t i = std::size_t(y) * kWidth + x;
        crop_image.insert(crop_image.end(), image.begin() + 3 * i, image.begin() + 3 * i + 3);
        crop_target.insert(crop_target.end(), target.begin() + 4 * i, target.begin() + 4 * i + 4);
        crop_valid.push_back(valid[i]);
      }
    const Buffer<float> ci = Buffer<float>::from(crop_image, Device::Cpu);
    const Buffer<std::uint8_t> ct = Buffer<std::uint8_t>::from(crop_target, Device::Cpu);
    const Buffer<std::uint8_t> cv = Buffer<std::uint8_t>::from(crop_valid, Device::Cpu);
    training::ImagePair p;
    p.width = r.width();
    p.height = r.height();
    p.image = ci.view();
    p.target = ct.view();
    if (masked) p.valid = cv.view();  // valid_pixels is not read with a window
    std::copy_n(background, 3, p.background);
    p.window = {owned.x0 - r.x0, owned.y0 - r.y0, owned.x1 - r.x0, owned.y1 - r.y0,
                masked ? valid_pixels : std::size_t(kWidth) * kHeight};
    Buffer<float> g(crop_image.size(), Device::Cpu), v(4, Device::Cpu);
    loss.backward(p, g.view(), v.view());
    const std::vector<float> gv = g.to_vector(), vv = v.to_vector();
    for (int k = 0; k < 4; ++k) sum_values[k] += vv[std::size_t(k)];
    for (int y = r.y0; y < r.y1; ++y)
      for (int x = r.x0; x < r.x1; ++x)
        for (int c = 0; c < 3; ++c)
          sum_grad[(std::size_t(y) * kWidth + x) * 3 + c] += gv[(std::size_t(y - r.y0) * r.width() + (x - r.x0)) * 3 + c];
    // The metrics of a window are its terms too.
    const training::LossValues e = loss.evaluate(p);
    EXPECT_NEAR(e.l1, vv[1], 1e-6);
  }
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(sum_values[k], full_values[std::size_t(k)], 2e-6) << "value " << k;
  const double scale = max_abs(full_grad);
  double worst = 0;
  for (std::size_t i = 0; i < full_grad.size(); ++i) {
    worst = std::max(worst, std::fabs(double(sum_grad[i]) - full_grad[i]) / scale);
    if (!valid[i / 3]) {
      EXPECT_EQ(full_grad[i], 0.0f) << "masked element " << i;
      EXPECT_EQ(sum_grad[i], 0.0f) << "masked element " << i;
    }
  }
  EXPECT_LT(worst, 1e-5);
  return full_values;
}

}  // namespace

TEST(LossWindow, WindowsOfAPartitionAddUpToTheImagesLossAndGradient) {
  expect_windows_add_up(false);

  training::ImageLoss loss(Device::Cpu, 0.2f);
  const Buffer<float> image(std::size_t(kWidth) * kHeight * 3, Device::Cpu);
  const Buffer<std::uint8_t> target(std::size_t(kWidth) * kHeight * 4, Device::Cpu);
  training::ImagePair pair;
  pair.width = kWidth;
  pair.height = kHeight;
  pair.image = image.view();
  pair.target = target.view();
  Buffer<float> grad(image.size(), Device::Cpu), values(4, Device::Cpu);
  // A window outside its crop, or larger than its image, is refused.
  training::ImagePair bad = pair;
  bad.window = {0, 0, kWidth + 16, kHeight, std::size_t(kWidth) * kHeight};
  EXPECT_THROW(loss.backward(bad, grad.view(), values.view()), InvalidArgument);
  bad.window = {0, 0, kWidth, kHeight, 10};
  EXPECT_THROW(loss.backward(bad, grad.view(), values.view()), InvalidArgument);
}

// A masked loss (undistortion borders) on a cropped window: the windows' terms add up to the masked image's.
TEST(LossWindow, MaskedWindowsAddUpToTheMaskedImagesLossAndGradient) {
  const std::vector<float> masked = expect_windows_add_up(true), whole = expect_windows_add_up(false);
  for (int k = 0; k < 4; ++k) EXPECT_NE(masked[std::size_t(k)], whole[std::size_t(k)]) << "value " << k;
}
