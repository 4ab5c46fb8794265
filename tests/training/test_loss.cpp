// The L1 + SSIM loss: values against a direct float64 SSIM (2D window, no separation), gradients against
// central finite differences of that reference, float against double, special cases, the public API.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cpu/loss_cpu.h"
#include "test_support.h"
#include "tilegrad/training/loss.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {

struct Pair {
  int w, h;
  std::vector<double> image;         // [H, W, 3]
  std::vector<std::uint8_t> target;  // [H, W, 4] premultiplied
  double background[3] = {0.2, 0.7, 1.0};
};

Pair random_pair(int w, int h, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.1, 1.1);
  std::uniform_int_distribution<int> byte(0, 255);
  Pair p{w, h, {}, {}};
  for (int i = 0; i < w * h * 3; ++i) p.image.push_back(u(rng));
  for (int i = 0; i < w * h; ++i) {
    const int a = byte(rng);
    for (int c = 0; c < 3; ++c) p.target.push_back(std::uint8_t(byte(rng) * a / 255));
    p.target.push_back(std::uint8_t(a));
  }
  return p;
}

// Independent float64 reference: the 2D window written out (outer product of the normalised 1D Gaussian),
// zero padding, SSIM per pixel and channel, means, the loss.
double reference_loss(const Pair& p, const std::vector<double>& x, double lambda, double* ssim_out = nullptr,
                      double* l1_out = nullptr) {
  double g[11], total = 0;
  for (int k = 0; k < 11; ++k) total += g[k] = std::exp(-double((k - 5) * (k - 5)) / 4.5);
  for (double& v : g) v /= total;
  auto y = [&](int px, int py, int c) {
    const std::uint8_t* t = &p.target[(std::size_t(py) * p.w + px) * 4];
    return t[c] / 255.0 + (1.0 - t[3] / 255.0) * p.background[c];
  };
  double ssim = 0, l1 = 0;
  for (int py = 0; py < p.h; ++py)
    for (int px = 0; px < p.w; ++px)
      for (int c = 0; c < 3; ++c) {
        double mx = 0, my = 0, xx = 0, yy = 0, xy = 0;
        for (int dy = -5; dy <= 5; ++dy)
          for (int dx = -5; dx <= 5; ++dx) {
            const int qx = px + dx, qy = py + dy;
            if (qx < 0 || qy < 0 || qx >= p.w || qy >= p.h) continue;
            const double w = g[dx + 5] * g[dy + 5];
            const double xv = x[(std::size_t(qy) * p.w + qx) * 3 + c], yv = y(qx, qy, c);
            mx += w * xv, my += w * yv, xx += w * xv * xv, yy += w * yv * yv, xy += w * xv * yv;
          }
        const double c1 = 1e-4, c2 = 9e-4;
        const double vx = xx - mx * mx, vy = yy - my * my, cov = xy - mx * my;
        ssim += (2 * mx * my + c1) * (2 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
        l1 += std::fabs(x[(std::size_t(py) * p.w + px) * 3 + c] - y(px, py, c));
      }
  const double n = double(p.w) * p.h * 3;
  if (ssim_out) *ssim_out = ssim / n;
  if (l1_out) *l1_out = l1 / n;
  return (1 - lambda) * l1 / n + lambda * (1 - ssim / n);
}

template <class T>
std::vector<T> gradient(const Pair& p, const std::vector<T>& x, T lambda, float* values,
                        const std::uint8_t* valid = nullptr) {
  std::vector<T> grad(x.size());
  T bg[3] = {T(p.background[0]), T(p.background[1]), T(p.background[2])};
  training::detail::image_loss_cpu<T>(p.w, p.h, x.data(), p.target.data(), bg, lambda, false, grad.data(), values,
                                      valid);
  return grad;
}

// The masked loss by definition: the reference SSIM map and L1 of the image that takes the target's values on
// masked pixels, averaged over the valid pixels only.
double reference_masked_loss(const Pair& p, const std::vector<double>& x, const std::vector<std::uint8_t>& valid,
                             double lambda) {
  std::vector<double> filled = x;
  for (int i = 0; i < p.w * p.h; ++i)
    if (!valid[std::size_t(i)])
      for (int c = 0; c < 3; ++c) {
        const std::uint8_t* t = &p.target[std::size_t(i) * 4];
        filled[std::size_t(i) * 3 + c] = t[c] / 255.0 + (1.0 - t[3] / 255.0) * p.background[c];
      }
  double g[11], total = 0;
  for (int k = 0; k < 11; ++k) total += g[k] = std::exp(-double((k - 5) * (k - 5)) / 4.5);
  for (double& v : g) v /= total;
  auto value = [&](int px, int py, int c, bool target) {
    const std::size_t i = std::size_t(py) * p.w + px;
    if (!target) return filled[i * 3 + c];
    const std::uint8_t* t = &p.target[i * 4];
    return t[c] / 255.0 + (1.0 - t[3] / 255.0) * p.background[c];
  };
  double ssim = 0, l1 = 0, counted = 0;
  for (int py = 0; py < p.h; ++py)
    for (int px = 0; px < p.w; ++px) {
      if (!valid[std::size_t(py) * p.w + px]) continue;
      for (int c = 0; c < 3; ++c) {
        double mx = 0, my = 0, xx = 0, yy = 0, xy = 0;
        for (int dy = -5; dy <= 5; ++dy)
          for (int dx = -5; dx <= 5; ++dx) {
            const int qx = px + dx, qy = py + dy;
            if (qx < 0 || qy < 0 || qx >= p.w || qy >= p.h) continue;
            const double w = g[dx + 5] * g[dy + 5];
            const double xv = value(qx, qy, c, false), yv = value(qx, qy, c, true);
            mx += w * xv, my += w * yv, xx += w * xv * xv, yy += w * yv * yv, xy += w * xv * yv;
          }
        const double c1 = 1e-4, c2 = 9e-4;
        const double vx = xx - mx * mx, vy = yy - my * my, cov = xy - mx * my;
        ssim += (2 * mx * my + c1) * (2 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
        l1 += std::fabs(value(px, py, c, false) - value(px, py, c, true));
        counted += 1;
      }
    }
  return (1 - lambda) * l1 / counted + lambda * (1 - ssim / counted);
}

// The public API's view of the pair, with the image as float32 (xf) and an optional valid-pixel mask.
ImagePair image_pair(const Pair& p, const std::vector<float>& xf, const std::vector<std::uint8_t>* valid = nullptr) {
  ImagePair pair;
  pair.width = p.w;
  pair.height = p.h;
  pair.image = View<const float>(xf.data(), xf.size(), Device::Cpu);
  pair.target = View<const std::uint8_t>(p.target.data(), p.target.size(), Device::Cpu);
  for (int c = 0; c < 3; ++c) pair.background[c] = float(p.background[c]);
  if (valid) {
    pair.valid = View<const std::uint8_t>(valid->data(), valid->size(), Device::Cpu);
    pair.valid_pixels = std::size_t(std::count(valid->begin(), valid->end(), 1));
  }
  return pair;
}

}  // namespace

TEST(Loss, ValuesMatchTheDirectFloat64Reference) {
  const Pair p = random_pair(17, 13, 1);
  double ssim = 0, l1 = 0;
  const double loss = reference_loss(p, p.image, 0.2, &ssim, &l1);
  float values[4];
  gradient<double>(p, p.image, 0.2, values);
  EXPECT_NEAR(values[0], loss, 1e-6);
  EXPECT_NEAR(values[1], l1, 1e-6);
  EXPECT_NEAR(values[2], ssim, 1e-6);
  // Float: the same within float rounding of the moments.
  const std::vector<float> xf(p.image.begin(), p.image.end());
  gradient<float>(p, xf, 0.2f, values);
  EXPECT_NEAR(values[2], ssim, 2e-5);
  EXPECT_NEAR(values[0], loss, 2e-5);
}

TEST(Loss, GradientMatchesCentralDifferencesOfTheReference) {
  Pair p = random_pair(14, 12, 2);
  // Keep x away from the L1 kink |x - y| = 0 so the difference quotient sees one side only.
  for (std::size_t i = 0; i < p.image.size(); ++i) p.image[i] += 0.05;
  float values[4];
  const std::vector<double> grad = gradient<double>(p, p.image, 0.2, values);
  const double h = 1e-6;
  double worst = 0;
  for (std::size_t i = 0; i < p.image.size(); i += 7) {
    std::vector<double> plus = p.image, minus = p.image;
    plus[i] += h;
    minus[i] -= h;
    const double fd = (reference_loss(p, plus, 0.2) - reference_loss(p, minus, 0.2)) / (2 * h);
    worst = std::max(worst, std::fabs(fd - grad[i]) / std::max(std::fabs(fd), 1e-4));
  }
  EXPECT_LT(worst, 1e-5);
}

TEST(Loss, FloatGradientAgreesWithDouble) {
  const Pair p = random_pair(40, 31, 3);
  float values[4];
  const std::vector<double> gd = gradient<double>(p, p.image, 0.2, values);
  const std::vector<float> xf(p.image.begin(), p.image.end());
  const std::vector<float> gf = gradient<float>(p, xf, 0.2f, values);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < gd.size(); ++i) {
    num += (gf[i] - gd[i]) * (gf[i] - gd[i]);
    den += gd[i] * gd[i];
  }
  EXPECT_LT(std::sqrt(num / den), 1e-4);
}

TEST(Loss, IdenticalImagesHaveUnitSsimAndZeroLoss) {
  Pair p = random_pair(20, 20, 4);
  for (int i = 0; i < p.w * p.h; ++i)
    for (int c = 0; c < 3; ++c) {
      const std::uint8_t* t = &p.target[std::size_t(i) * 4];
      const double scale = 1.0 / 255.0;  // composite_target's operations, so x equals y bit for bit
      p.image[std::size_t(i) * 3 + c] = double(t[c]) * scale + (1.0 - double(t[3]) * scale) * p.background[c];
    }
  float values[4];
  const std::vector<double> grad = gradient<double>(p, p.image, 0.2, values);
  EXPECT_NEAR(values[2], 1.0, 1e-12);
  EXPECT_NEAR(values[0], 0.0, 1e-12);
  for (double g : grad) EXPECT_NEAR(g, 0.0, 1e-12);  // a minimum: no L1 subgradient, SSIM stationary
}

TEST(Loss, PureL1GradientIsTheSignOverN) {
  const Pair p = random_pair(9, 7, 5);
  float values[4];
  const std::vector<double> grad = gradient<double>(p, p.image, 0.0, values);
  double l1 = 0;
  reference_loss(p, p.image, 0.0, nullptr, &l1);
  EXPECT_NEAR(values[0], l1, 1e-7);
  const double n = double(p.image.size());
  for (std::size_t i = 0; i < grad.size(); ++i) EXPECT_NEAR(std::fabs(grad[i]), 1.0 / n, 1e-15);
}

TEST(Loss, PublicApiMatchesTheReferenceAndClampsForMetrics) {
  const Pair p = random_pair(23, 19, 6);
  const std::vector<float> xf(p.image.begin(), p.image.end());
  ImageLoss loss(Device::Cpu, 0.2f);
  const ImagePair pair = image_pair(p, xf);
  std::vector<float> grad(xf.size()), values(4);
  loss.backward(pair, View<float>(grad.data(), grad.size(), Device::Cpu), View<float>(values.data(), 4, Device::Cpu));
  float ref_values[4];
  const std::vector<float> ref = gradient<float>(p, xf, 0.2f, ref_values);
  EXPECT_TRUE(test::bitwise_equal(grad, ref));
  EXPECT_EQ(values[0], ref_values[0]);
  // Metrics see the image clamped to [0, 1].
  std::vector<double> clamped = p.image;
  for (double& v : clamped) v = std::min(1.0, std::max(0.0, v));
  double ssim = 0;
  reference_loss(p, clamped, 0.2, &ssim);
  const LossValues m = loss.evaluate(pair);
  EXPECT_NEAR(m.ssim, ssim, 2e-5);
  double mse = 0;
  for (int i = 0; i < p.w * p.h; ++i)
    for (int c = 0; c < 3; ++c) {
      const std::uint8_t* t = &p.target[std::size_t(i) * 4];
      const double y = t[c] / 255.0 + (1.0 - t[3] / 255.0) * p.background[c];
      mse += (clamped[std::size_t(i) * 3 + c] - y) * (clamped[std::size_t(i) * 3 + c] - y);
    }
  mse /= double(p.image.size());
  EXPECT_NEAR(m.mse, mse, 1e-6);
  EXPECT_NEAR(psnr_from_mse(m.mse), -10 * std::log10(mse), 1e-3);
}

TEST(Loss, RejectsMismatchedBuffers) {
  ImageLoss loss(Device::Cpu);
  std::vector<float> image(10 * 10 * 3);
  std::vector<std::uint8_t> target(10 * 9 * 4);
  ImagePair pair;
  pair.width = pair.height = 10;
  pair.image = View<const float>(image.data(), image.size(), Device::Cpu);
  pair.target = View<const std::uint8_t>(target.data(), target.size(), Device::Cpu);
  EXPECT_THROW(loss.evaluate(pair), InvalidArgument);
  EXPECT_THROW(ImageLoss(Device::Cpu, 1.5f), InvalidArgument);
}

// A valid-pixel mask (undistortion borders, user masks): the loss is the definition above, its gradient matches
// central differences of it and is zero on masked pixels, and the public API agrees with the reference passes.
TEST(Loss, MaskedPixelsAreIgnoredByValueAndGradient) {
  Pair p = random_pair(16, 13, 7);
  for (double& v : p.image) v += 0.05;
  std::vector<std::uint8_t> valid(std::size_t(p.w) * p.h, 1);
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x)
      if (x < 3 || (x - 10) * (x - 10) + (y - 6) * (y - 6) < 6) valid[std::size_t(y) * p.w + x] = 0;
  float values[4];
  const std::vector<double> grad = gradient<double>(p, p.image, 0.2, values, valid.data());
  EXPECT_NEAR(values[0], reference_masked_loss(p, p.image, valid, 0.2), 1e-6);
  const double h = 1e-6;
  double worst = 0;
  for (std::size_t i = 0; i < p.image.size(); i += 5) {
    std::vector<double> plus = p.image, minus = p.image;
    plus[i] += h;
    minus[i] -= h;
    const double fd =
        (reference_masked_loss(p, plus, valid, 0.2) - reference_masked_loss(p, minus, valid, 0.2)) / (2 * h);
    worst = std::max(worst, std::fabs(fd - grad[i]) / std::max(std::fabs(fd), 1e-4));
    if (!valid[i / 3]) {
      EXPECT_EQ(grad[i], 0.0) << i;
    }
  }
  EXPECT_LT(worst, 1e-5);
  // Changing masked pixels changes nothing.
  std::vector<double> other = p.image;
  for (std::size_t i = 0; i < other.size(); ++i)
    if (!valid[i / 3]) other[i] = 7.0;
  float other_values[4];
  gradient<double>(p, other, 0.2, other_values, valid.data());
  EXPECT_EQ(other_values[0], values[0]);
  // The public API with a mask: the same bits as the reference passes; metrics over the valid pixels.
  const std::vector<float> xf(p.image.begin(), p.image.end());
  ImageLoss loss(Device::Cpu, 0.2f);
  ImagePair pair = image_pair(p, xf, &valid);
  std::vector<float> api_grad(xf.size()), api_values(4);
  loss.backward(pair, View<float>(api_grad.data(), api_grad.size(), Device::Cpu),
                View<float>(api_values.data(), 4, Device::Cpu));
  float ref_values[4];
  EXPECT_TRUE(test::bitwise_equal(api_grad, gradient<float>(p, xf, 0.2f, ref_values, valid.data())));
  EXPECT_EQ(api_values[0], ref_values[0]);
  pair.valid_pixels = 0;
  EXPECT_THROW(loss.evaluate(pair), InvalidArgument);
}
