// Training images from distorted and large photos: the plan (undistorted camera, training resolution) and the
// resampler (geometry through every lens model, exact copies and box filters as special cases, valid masks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../rasterizer/lens_fixtures.h"
#include "fixtures.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/image.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/default_scene.h"
#include "tilegrad/training/export_colmap.h"
#include "tilegrad/training/lens_capture.h"
#include "tilegrad/training/undistort.h"

using namespace tilegrad;
using namespace tilegrad::training;

namespace {

raster::Camera camera(int w, int h, float f) {
  raster::Camera c = test::centered_camera(w, h, f);
  c.cx += 1.25f;  // off centre, as real calibrations are
  c.cy -= 0.5f;
  return c;
}

View<const std::uint8_t> host_view(const std::vector<std::uint8_t>& v) {
  return View<const std::uint8_t>(v.data(), v.size(), Device::Cpu);
}

// A smooth opaque pattern in [27.5, 227.5] defined on a pinhole image plane.
double pattern(double px, double py, int c) {
  return 127.5 + 100.0 * std::sin(px / 7.0 + c) * std::cos(py / 5.0 - 0.5 * c);
}

}  // namespace

TEST(Undistort, PlanChoosesTheTrainingResolution) {
  const raster::Camera c = camera(400, 300, 320);
  ResolutionOptions o;
  ImagePlan p = plan_image(c, raster::Lens{}, o, false);
  EXPECT_EQ(p.box_downscale, 1);  // a plain copy: the exact box path
  EXPECT_EQ(p.target.width, 400);
  o.downscale = 4;
  p = plan_image(c, raster::Lens{}, o, false);
  EXPECT_EQ(p.box_downscale, 4);
  EXPECT_EQ(p.target.width, 100);
  EXPECT_FLOAT_EQ(p.target.fx, 80.0f);
  // A target width keeps the aspect ratio and resamples with enough subsamples to cover each source block.
  o.downscale = 1;
  o.width = 150;
  p = plan_image(c, raster::Lens{}, o, false);
  EXPECT_EQ(p.box_downscale, 0);
  EXPECT_EQ(p.target.width, 150);
  EXPECT_EQ(p.target.height, 113);  // 300 * 150 / 400 = 112.5, rounded
  EXPECT_EQ(p.subsamples, 3);
  EXPECT_FLOAT_EQ(p.target.fx, 120.0f);
  EXPECT_FLOAT_EQ(p.target.cy, c.cy * 113.0f / 300.0f);
  // The cap applies only without an explicit factor or width.
  o.width = 0;
  o.max_width = 256;
  p = plan_image(c, raster::Lens{}, o, false);
  EXPECT_TRUE(p.capped);
  EXPECT_EQ(p.target.width, 256);
  o.downscale = 2;
  p = plan_image(c, raster::Lens{}, o, false);
  EXPECT_FALSE(p.capped);
  EXPECT_EQ(p.target.width, 200);
  // A distorted lens is undistorted first (COLMAP's crop here), then brought to the resolution.
  const raster::Lens barrel = test::make_lens(raster::LensModel::OpenCV, {-0.28, 0.09, 0.0012, -0.0008});
  o = ResolutionOptions{};
  p = plan_image(c, barrel, o, false);
  EXPECT_EQ(p.box_downscale, 0);
  EXPECT_EQ(p.subsamples, 1);
  EXPECT_EQ(p.target.width, raster::undistorted_camera(c, barrel).width);
  o.undistort = UndistortMode::Full;
  EXPECT_EQ(plan_image(c, barrel, o, false).target.width, raster::undistorted_camera(c, barrel, 1.0).width);
  o.width = 100;
  o.downscale = 2;
  EXPECT_THROW(plan_image(c, barrel, o, false), InvalidArgument);
  EXPECT_EQ(undistort_mode_from_string("full"), UndistortMode::Full);
  EXPECT_THROW(undistort_mode_from_string("fit"), InvalidArgument);
}

TEST(Undistort, PinholeOntoItselfIsAnExactCopyAndAnIntegerResizeIsTheBoxFilter) {
  test::TempDir dir;
  const std::string png = dir.file("p.png");
  test::write_pattern_png(png, 36, 24, 4);
  int w = 0, h = 0;
  bool alpha = false;
  const std::vector<std::uint8_t> source = load_rgba_image(png, 1, w, h, alpha);
  const raster::Camera c = camera(36, 24, 30);
  ResolutionOptions o;
  ImagePlan p = plan_image(c, raster::Lens{}, o, true);  // with a mask: the resampler, not the box path
  ASSERT_EQ(p.box_downscale, 0);
  const std::vector<std::uint8_t> full_mask(36 * 24, 255);
  ResampledImage r = resample_image(p, host_view(source), host_view(full_mask), Device::Cpu);
  EXPECT_EQ(r.rgba.to_vector(), source);
  EXPECT_TRUE(r.valid.empty());
  EXPECT_EQ(r.valid_pixels, 36u * 24u);
  // Halving through the resampler (2 x 2 samples at the source pixel centres) is the box filter, to within one
  // unit of rounding (it averages rounded premultiplied bytes, the box filter the decoded floats).
  o.downscale = 2;
  p = plan_image(c, raster::Lens{}, o, true);
  EXPECT_EQ(p.subsamples, 2);
  r = resample_image(p, host_view(source), host_view(full_mask), Device::Cpu);
  const std::vector<std::uint8_t> box = load_rgba_image(png, 2, w, h, alpha);
  const std::vector<std::uint8_t> got = r.rgba.to_vector();
  ASSERT_EQ(got.size(), box.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_LE(std::abs(int(got[i]) - int(box[i])), 1) << i;
  // A mask zero on the left half marks those pixels invalid (and zero).
  std::vector<std::uint8_t> half(36 * 24, 255);
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 18; ++x) half[std::size_t(y) * 36 + x] = 0;
  r = resample_image(p, host_view(source), host_view(half), Device::Cpu);
  const std::vector<std::uint8_t> valid = r.valid.to_vector(), rgba = r.rgba.to_vector();
  ASSERT_EQ(valid.size(), 18u * 12u);
  EXPECT_EQ(r.valid_pixels, 9u * 12u);
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 18; ++x) {
      EXPECT_EQ(valid[std::size_t(y) * 18 + x], x >= 9 ? 1 : 0) << x << "," << y;
      if (x < 9) {
        EXPECT_EQ(rgba[(std::size_t(y) * 18 + x) * 4 + 3], 0);
      }
    }
}

// A smooth pattern on the undistorted image plane, photographed through each lens (every source pixel centre
// undistorted by Newton iteration and the pattern read there), comes back on the pinhole grid: the resampler's
// geometry is the inverse of the photograph's to within bilinear interpolation error.
TEST(Undistort, ResamplingRecoversThePinholeImageThroughEveryLens) {
  const raster::Camera src = camera(120, 90, 100);
  for (const raster::Lens& lens : test::every_distorted_lens()) {
    const raster::LensCoefficients<double> coef = raster::lens_coefficients(lens);
    for (const UndistortMode mode : {UndistortMode::Crop, UndistortMode::Full}) {
      for (const Interpolation interpolation : {Interpolation::Bicubic, Interpolation::Bilinear}) {
        ResolutionOptions o;
        o.undistort = mode;
        o.interpolation = interpolation;
        const ImagePlan p = plan_image(src, lens, o, false);
        const raster::Camera& t = p.target;
        std::vector<std::uint8_t> photo(std::size_t(src.width) * src.height * 4);
        for (int y = 0; y < src.height; ++y)
          for (int x = 0; x < src.width; ++x) {
            Vec2<double> uv;
            ASSERT_TRUE(raster::undistort_point(
                coef, {{(x + 0.5 - src.cx) / src.fx, (y + 0.5 - src.cy) / src.fy}}, uv));
            std::uint8_t* px = &photo[(std::size_t(y) * src.width + x) * 4];
            for (int c = 0; c < 3; ++c)
              px[c] = std::uint8_t(std::lround(pattern(t.fx * uv[0] + t.cx, t.fy * uv[1] + t.cy, c)));
            px[3] = 255;
          }
        const ResampledImage r = resample_image(p, host_view(photo), {}, Device::Cpu);
        const std::vector<std::uint8_t> got = r.rgba.to_vector();
        const std::vector<std::uint8_t> valid = r.valid.empty() ? std::vector<std::uint8_t>(std::size_t(t.width) * t.height, 1)
                                                                : r.valid.to_vector();
        double sum = 0, worst = 0;
        std::size_t counted = 0;
        for (int y = 0; y < t.height; ++y)
          for (int x = 0; x < t.width; ++x) {
            const std::size_t i = std::size_t(y) * t.width + x;
            if (!valid[i]) continue;
            for (int c = 0; c < 3; ++c) {
              const double e = std::fabs(got[i * 4 + c] - pattern(x + 0.5, y + 0.5, c));
              sum += e, worst = std::max(worst, e), ++counted;
            }
          }
        ASSERT_GT(counted, 0u);
        const char* name = raster::to_string(lens.model);
        // Bilinear interpolation of this pattern errs by a fraction of a unit; only the outer half pixel of the
        // source, where the edge is extended (full frame), errs by more.
        EXPECT_LT(sum / counted, 0.6) << name << " " << to_string(mode) << " " << to_string(interpolation);
        EXPECT_LT(worst, mode == UndistortMode::Crop ? 3.0 : 20.0) << name << " " << to_string(mode);
        // Crop keeps (nearly) every pixel; full frame masks the pixels without a source.
        if (mode == UndistortMode::Crop) {
          EXPECT_GT(double(r.valid_pixels), 0.99 * t.width * t.height) << name;
        } else {
          EXPECT_LT(r.valid_pixels, std::size_t(t.width) * t.height) << name;
        }
      }
    }
  }
}

TEST(Undistort, RejectsMismatchedBuffers) {
  const raster::Camera c = camera(8, 6, 10);
  const ImagePlan p = plan_image(c, raster::Lens{}, ResolutionOptions{}, true);
  const std::vector<std::uint8_t> small(8 * 5 * 4);
  EXPECT_THROW(resample_image(p, host_view(small), {}, Device::Cpu), InvalidArgument);
  const std::vector<std::uint8_t> ok(8 * 6 * 4), mask(3);
  EXPECT_THROW(resample_image(p, host_view(ok), host_view(mask), Device::Cpu), InvalidArgument);
}

// `tilegrad undistort`'s writer: the COLMAP PINHOLE scene it writes loads back as the same pinhole views (the
// same cameras and poses, the same pixels; full-frame masks read back from masks/), in .bin and .txt.
TEST(Undistort, ExportedColmapSceneLoadsBackAsTheSameViews) {
  test::TempDir dir;
  CaptureOptions c;
  c.views.width = 40;
  c.views.height = 30;
  c.views.train_views = 3;
  c.views.test_views = 1;
  c.focal = 34;
  c.supersample = 2;
  c.points = 50;
  c.lens = test::make_lens(raster::LensModel::OpenCV, {-0.25, 0.05, 0.001, 0.0});
  c.format = CaptureFormat::Transforms;
  write_lens_capture(dir.file("capture"), make_default_scene(), c);
  for (const bool text : {false, true}) {
    for (const UndistortMode mode : {UndistortMode::Crop, UndistortMode::Full}) {
      DatasetOptions o;
      o.path = dir.file("capture");
      o.test_every = 0;
      o.undistort = mode;
      const TrainingDataset original = load_dataset(o);
      ExportOptions e;
      e.text = text;
      const std::string out = dir.file(std::string("out_") + to_string(mode) + (text ? "_txt" : "_bin"));
      const ExportSummary s = write_colmap_dataset(original, out, e);
      EXPECT_EQ(s.images, 4u);
      EXPECT_EQ(s.cameras, 1u);
      EXPECT_EQ(s.points, original.points.size());
      EXPECT_EQ(s.masks > 0, mode == UndistortMode::Full);
      DatasetOptions back_options;
      back_options.path = out;
      back_options.test_every = 0;
      if (mode == UndistortMode::Full) back_options.masks = "masks";
      const TrainingDataset back = load_dataset(back_options);
      ASSERT_EQ(back.train.size(), original.train.size());
      EXPECT_EQ(back.points.size(), original.points.size());
      for (std::size_t i = 0; i < back.train.size(); ++i) {
        const TrainingView &a = original.train[i], &b = back.train[i];
        EXPECT_EQ(b.name, "frame_000" + std::to_string(i) + ".png");
        EXPECT_TRUE(raster::is_pinhole(b.plan.lens));
        EXPECT_EQ(b.camera.width, a.camera.width);
        EXPECT_EQ(b.camera.fx, a.camera.fx);
        EXPECT_EQ(b.camera.cy, a.camera.cy);
        for (int r = 0; r < 3; ++r) {
          EXPECT_NEAR(b.camera.translation[r], a.camera.translation[r], 1e-6);
          for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.camera.rotation(r, k), a.camera.rotation(r, k), 1e-6);
        }
        EXPECT_EQ(b.image.to_vector(), a.image.to_vector());  // opaque: PNG round trips the bytes
        EXPECT_EQ(b.valid.to_vector(), a.valid.to_vector());
        EXPECT_EQ(b.valid_pixels, a.valid_pixels);
      }
    }
  }
}
