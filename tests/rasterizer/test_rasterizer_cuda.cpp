// CUDA rasterizer against the CPU reference: images, gradients (every accumulation mode), the tile bands and
// strips, bitwise determinism of Owned at scale (and with or without the alpha term's division), degenerate
// scenes, buffers of the wrong device, the thrust binning's bits, out of memory. (What every backend does is
// test_render.cpp's, run here on CUDA.)
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "scenes.h"
#include "test_support.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/rasterizer/element/record.h"
#include "tilegrad/rasterizer/rasterizer.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

using test::agreement;
using test::Agreement;
using test::fraction_above;
using test::max_abs_diff;

// Every field of a Gradients, named (fields a backward leaves empty compare as equal).
std::array<std::pair<const char*, const Buffer<float>*>, 8> gradient_fields(const Gradients& g) {
  return {{{"means", &g.means},
           {"log_scales", &g.log_scales},
           {"quats", &g.quats},
           {"opacity_logits", &g.opacity_logits},
           {"sh", &g.sh},
           {"colors", &g.colors},
           {"mean2d", &g.mean2d},
           {"mean2d_abs", &g.mean2d_abs}}};
}

// Every field of x has y's bits.
void expect_same_gradient_bits(const Gradients& x, const Gradients& y, const std::string& what = {}) {
  const auto a = gradient_fields(x), b = gradient_fields(y);
  for (std::size_t k = 0; k < a.size(); ++k)
    EXPECT_TRUE(test::bitwise_equal(a[k].second->to_vector(), b[k].second->to_vector())) << what << " " << a[k].first;
}

void expect_gradients_agree(const Gradients& gpu, const Gradients& cpu, const char* what) {
  const auto a = gradient_fields(gpu), b = gradient_fields(cpu);
  for (std::size_t k = 0; k < a.size(); ++k) {
    const Agreement ag = agreement(a[k].second->to_vector(), b[k].second->to_vector());
    EXPECT_LT(ag.relative_l2, 1e-4) << what << " " << a[k].first;
    EXPECT_GT(ag.cosine, 0.99999) << what << " " << a[k].first;
  }
}

// Compositing without its discontinuous thresholds (alpha skip at 1/255, early stop): the CPU and CUDA images
// are then continuous in their (slightly different) float rounding and must agree tightly everywhere.
RasterSettings continuous_settings() {
  RasterSettings s;
  s.thresholds.min_alpha = 0.0f;
  s.thresholds.min_transmittance = 0.0f;
  return s;
}

// 96 opaque-ish splats of distinct colours stacked at three exactly equal depths, overlapping across several
// tiles of a 96x64 image: the composite depends on how ties in depth are ordered.
test::HostScene<float> equal_depths_scene() {
  test::HostScene<float> s;
  s.count = 96;
  s.sh_degree = 0;
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < s.count; ++i) {
    const float z = 3.0f + float(i % 3);
    s.means.insert(s.means.end(), {0.15f * u(rng) * z, 0.1f * u(rng) * z, z});
    for (int a = 0; a < 3; ++a) s.log_scales.push_back(std::log(0.05f * z));
    s.quats.insert(s.quats.end(), {1.0f, 0.0f, 0.0f, 0.0f});
    s.opacity_logits.push_back(1.5f);
    for (int c = 0; c < 3; ++c) s.sh.push_back(1.5f + 1.5f * u(rng));
  }
  return s;
}

struct SceneCase {
  std::size_t count;
  int sh_degree;
  int width, height;
  Camera camera;
  bool antialiased;
};

}  // namespace

TEST(RasterizerCuda, ImagesAndGradientsMatchTheCpuReference) {
  TG_REQUIRE_CUDA();
  const SceneCase cases[] = {
      {1000, 0, 128, 96, test::test_camera(128, 96), false},
      {10000, 3, 256, 192, test::test_camera(256, 192, 7.0f, -5.0f), false},
      {30000, 1, 320, 240, test::rotated_camera(320, 240, 0.2f), true},
      {100000, 2, 480, 360, test::test_camera(480, 360), false},
      // Enough tiles for the blend kernels (forward, Atomic, WarpAggregated) to use 2 bands per tile (1,200
      // tiles), then 1 (2,080): the cases above have fewer than 1,024 tiles and use 4.
      {20000, 3, 640, 480, test::test_camera(640, 480, 2.0f, 3.0f), false},
      {20000, 1, 832, 640, test::test_camera(832, 640), true},
  };
  for (const SceneCase& c : cases) {
    const std::size_t n = test::scaled(c.count);
    SCOPED_TRACE(::testing::Message() << n << " Gaussians, SH " << c.sh_degree << ", " << c.width << "x" << c.height);
    auto host = test::dense_scene(n, c.sh_degree, c.width, 100 + n);
    Gaussians g_cpu = test::to_gaussians(host, Device::Cpu), g_gpu = test::to_gaussians(host, Device::Cuda);
    RasterSettings settings = continuous_settings();
    settings.antialiased = c.antialiased;
    settings.background[2] = 0.5f;
    settings.render_depth = true;
    Rasterizer cpu(Device::Cpu), gpu(Device::Cuda);
    const auto f_cpu = cpu.forward(g_cpu.view(), c.camera, settings);
    const auto f_gpu = gpu.forward(g_gpu.view(), c.camera, settings);
    EXPECT_EQ(f_gpu.instances(), f_cpu.instances());
    EXPECT_EQ(f_gpu.visible_gaussians(), f_cpu.visible_gaussians());
    EXPECT_LE(max_abs_diff(f_gpu.image.to_vector(), f_cpu.image.to_vector()), 1e-4);
    EXPECT_LE(max_abs_diff(f_gpu.alpha.to_vector(), f_cpu.alpha.to_vector()), 1e-4);
    EXPECT_LE(max_abs_diff(f_gpu.depth.to_vector(), f_cpu.depth.to_vector()), 1e-3);
    const std::size_t pixels = std::size_t(c.width) * c.height;
    const auto d_image = test::random_floats(pixels * 3, 1), d_alpha = test::random_floats(pixels, 2),
               d_depth = test::random_floats(pixels, 3, -0.05f, 0.05f);
    auto bi = Buffer<float>::from(d_image, Device::Cpu), ba = Buffer<float>::from(d_alpha, Device::Cpu),
         bd = Buffer<float>::from(d_depth, Device::Cpu);
    auto gi = bi.to(Device::Cuda), ga = ba.to(Device::Cuda), gd = bd.to(Device::Cuda);
    // Depth loss and the absolute statistic: the 12-float records (the other tests use the 9-float ones).
    const auto grad_cpu = cpu.backward(f_cpu, g_cpu.view(), bi.view(), ba.view(), bd.view(), {Accumulation::Owned, true});
    ASSERT_EQ(grad_cpu.mean2d_abs.size(), n * 2);
    for (Accumulation mode : kAllAccumulations) {
      const auto grad_gpu = gpu.backward(f_gpu, g_gpu.view(), gi.view(), ga.view(), gd.view(), {mode, true});
      expect_gradients_agree(grad_gpu, grad_cpu, to_string(mode));
    }
    BackwardSettings strips{Accumulation::Owned, true};
    strips.max_record_bytes = 1;  // every row of tiles a strip of its own
    expect_gradients_agree(gpu.backward(f_gpu, g_gpu.view(), gi.view(), ga.view(), gd.view(), strips), grad_cpu,
                           "Owned in strips");
  }
}

TEST(RasterizerCuda, DefaultThresholdsAgreeUpToThresholdFlips) {
  TG_REQUIRE_CUDA();
  // With the 1/255 skip and the early stop, a fragment whose alpha lies within float rounding of a threshold
  // can be kept on one backend and skipped on the other (a step of up to ~1/255 in one pixel). Such flips are
  // rare: nearly every pixel still agrees to 1e-4, and the gradients stay aligned.
  auto host = test::dense_scene(test::scaled(100000), 3, 480, 404);
  Gaussians g_cpu = test::to_gaussians(host, Device::Cpu), g_gpu = test::to_gaussians(host, Device::Cuda);
  const Camera cam = test::test_camera(480, 360, -3.0f, 2.0f);
  Rasterizer cpu(Device::Cpu), gpu(Device::Cuda);
  const auto f_cpu = cpu.forward(g_cpu.view(), cam), f_gpu = gpu.forward(g_gpu.view(), cam);
  const auto ic = f_cpu.image.to_vector(), ig = f_gpu.image.to_vector();
  EXPECT_LT(fraction_above(ig, ic, 1e-4), 1e-3);
  EXPECT_LT(max_abs_diff(ig, ic), 0.05);
  const auto dl = test::random_floats(480 * 360 * 3, 4);
  const auto gc = cpu.backward(f_cpu, g_cpu.view(), Buffer<float>::from(dl, Device::Cpu).view());
  const auto gg = gpu.backward(f_gpu, g_gpu.view(), Buffer<float>::from(dl, Device::Cuda).view());
  for (const auto& [a, b] : {std::pair{&gg.means, &gc.means}, std::pair{&gg.sh, &gc.sh}, std::pair{&gg.quats, &gc.quats}}) {
    const Agreement ag = agreement(a->to_vector(), b->to_vector());
    EXPECT_GT(ag.cosine, 0.999);
    EXPECT_LT(ag.relative_l2, 0.05);
  }
}

TEST(RasterizerCuda, OwnedGradientsAreBitwiseReproducible) {
  TG_REQUIRE_CUDA();
  auto host = test::dense_scene(test::scaled(50000), 3, 320, 77);
  Gaussians g = test::to_gaussians(host, Device::Cuda);
  Rasterizer r(Device::Cuda);
  const Camera cam = test::test_camera(320, 240);
  const auto fwd = r.forward(g.view(), cam);
  auto dl = Buffer<float>::from(test::random_floats(320 * 240 * 3, 5), Device::Cuda);
  const auto first = r.backward(fwd, g.view(), dl.view(), {}, {}, {Accumulation::Owned});
  for (int i = 0; i < 10; ++i) {
    const auto again = r.backward(fwd, g.view(), dl.view(), {}, {}, {Accumulation::Owned});
    ASSERT_TRUE(test::bitwise_equal(again.means.to_vector(), first.means.to_vector())) << "run " << i;
    ASSERT_TRUE(test::bitwise_equal(again.sh.to_vector(), first.sh.to_vector()));
    ASSERT_TRUE(test::bitwise_equal(again.quats.to_vector(), first.quats.to_vector()));
    ASSERT_TRUE(test::bitwise_equal(again.mean2d_abs.to_vector(), first.mean2d_abs.to_vector()));
  }
  // A fresh forward of the same scene gives the same bits too.
  const auto fwd2 = r.forward(g.view(), cam);
  EXPECT_TRUE(test::bitwise_equal(fwd2.image.to_vector(), fwd.image.to_vector()));
  const auto third = r.backward(fwd2, g.view(), dl.view(), {}, {}, {Accumulation::Owned});
  EXPECT_TRUE(test::bitwise_equal(third.log_scales.to_vector(), first.log_scales.to_vector()));
}

// Without a loss on alpha and with a black background, the blend backward skips the division of the alpha term
// (zero) by 1 - alpha, but only in warps where every pixel's term is zero. A loss on alpha at pixels nothing
// covers (alpha 0, no fragment) changes no gradient, yet makes the warps holding such pixels divide for their
// covered pixels too: the Owned and SortReduce gradients must keep their bits.
TEST(RasterizerCuda, SkippingTheZeroAlphaTermDivisionKeepsTheBits) {
  TG_REQUIRE_CUDA();
  const int width = 320, height = 240;
  auto host = test::dense_scene(60, 2, width, 88);  // 72% of the pixels covered, ~690 mixed strips
  const Gaussians g = test::to_gaussians(host, Device::Cuda);
  Rasterizer r(Device::Cuda);
  const Camera cam = test::test_camera(width, height);
  const auto fwd = r.forward(g.view(), cam);  // black background
  const std::vector<float> alpha = fwd.alpha.to_vector();
  // d_alpha = 1 where nothing was composited; count the 16x2 pixel strips (a warp of a 16x16 tile) that mix
  // empty and covered pixels: there the covered pixels take the division.
  std::vector<float> d_alpha(alpha.size(), 0.0f);
  for (std::size_t p = 0; p < alpha.size(); ++p) d_alpha[p] = alpha[p] == 0.0f ? 1.0f : 0.0f;
  int mixed = 0;
  for (int y = 0; y < height; y += 2)
    for (int x = 0; x < width; x += 16) {
      int empty = 0;
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 16; ++dx) empty += alpha[std::size_t(y + dy) * width + x + dx] == 0.0f;
      mixed += empty > 0 && empty < 32;
    }
  ASSERT_GT(mixed, 100);
  const auto dl = Buffer<float>::from(test::random_floats(std::size_t(width) * height * 3, 9), Device::Cuda);
  const auto da = Buffer<float>::from(d_alpha, Device::Cuda);
  for (Accumulation mode : {Accumulation::Owned, Accumulation::SortReduce}) {
    const Gradients skip = r.backward(fwd, g.view(), dl.view(), {}, {}, {mode});
    const Gradients divide = r.backward(fwd, g.view(), dl.view(), da.view(), {}, {mode});
    expect_same_gradient_bits(skip, divide, to_string(mode));
  }
}

// Tiles denser than BackwardSettings::depth_chunk are blended backward by several blocks, each replaying the
// fragments behind its chunk: the records keep their bits for any chunk length, the automatic one included (with
// an alpha loss and a white background, the 12-float records and strips of tile rows too); the atomic modes
// agree within their rounding.
TEST(RasterizerCuda, DepthChunksKeepTheBits) {
  TG_REQUIRE_CUDA();
  const int width = 320, height = 240;
  auto host = test::dense_scene(test::scaled(50000), 2, width, 61);
  const Gaussians g = test::to_gaussians(host, Device::Cuda);
  Rasterizer r(Device::Cuda);
  RasterSettings rs;
  for (float& c : rs.background) c = 1.0f;
  const auto fwd = r.forward(g.view(), test::test_camera(width, height), rs);
  // 300 tiles: most hold more instances than the shorter chunks below, at every test scale.
  ASSERT_GT(fwd.instances(), 300u * 100u) << "tiles must hold more instances than the chunks";
  const std::size_t pixels = std::size_t(width) * height;
  const auto dl = Buffer<float>::from(test::random_floats(pixels * 3, 21), Device::Cuda);
  const auto da = Buffer<float>::from(test::random_floats(pixels, 22), Device::Cuda);
  auto run = [&](Accumulation mode, std::uint32_t chunk, bool wide, std::size_t record_limit = 0) {
    BackwardSettings bs{mode, wide};
    bs.depth_chunk = chunk;
    bs.max_record_bytes = record_limit;
    return r.backward(fwd, g.view(), dl.view(), da.view(), {}, bs);
  };
  for (Accumulation mode : kAllAccumulations) {
    for (bool wide : {false, true}) {
      const Gradients whole = run(mode, 0, wide);
      for (std::uint32_t chunk : {1u, 37u, 300u, 4096u, BackwardSettings::kAutoDepthChunk}) {
        SCOPED_TRACE(::testing::Message() << to_string(mode) << (wide ? " 12" : " 9") << " floats, chunk " << chunk);
        const Gradients split = run(mode, chunk, wide);
        if (is_deterministic(mode)) {
          expect_same_gradient_bits(split, whole);
          continue;
        }
        const auto a = gradient_fields(split), b = gradient_fields(whole);
        for (std::size_t k = 0; k < a.size(); ++k)
          EXPECT_LT(agreement(a[k].second->to_vector(), b[k].second->to_vector()).relative_l2, 1e-5) << a[k].first;
      }
    }
  }
  // Strips of tile rows (one per row) with and without chunks: the same bits.
  const Gradients strips = run(Accumulation::Owned, 0, false, 1), both = run(Accumulation::Owned, 37, false, 1);
  expect_same_gradient_bits(strips, both, "strips");
}

// The chunk plan scans the tile order in passes of 8192 positions: an image of more tiles (160 x 64) keeps the
// whole-tile bits too, with every tile split (chunks of one instance) and with a few split.
TEST(RasterizerCuda, DepthChunksKeepTheBitsBeyondOnePlanPass) {
  TG_REQUIRE_CUDA();
  const int width = 2560, height = 1024;
  const Gaussians g = test::to_gaussians(test::dense_scene(test::scaled(100000), 0, width, 63), Device::Cuda);
  Rasterizer r(Device::Cuda);
  const auto fwd = r.forward(g.view(), test::test_camera(width, height));
  ASSERT_GT(fwd.instances(), 10240u) << "more instances than tiles";
  const auto dl = Buffer<float>::from(test::random_floats(std::size_t(width) * height * 3, 64), Device::Cuda);
  auto run = [&](std::uint32_t chunk) {
    BackwardSettings bs{Accumulation::Owned};
    bs.depth_chunk = chunk;
    return r.backward(fwd, g.view(), dl.view(), {}, {}, bs);
  };
  const Gradients whole = run(0);
  for (std::uint32_t chunk : {1u, 7u}) {
    expect_same_gradient_bits(run(chunk), whole, "chunk " + std::to_string(chunk));
  }
}

// Owned and SortReduce sum a record for every instance, also for those behind every pixel's last contributor of
// their tile, which no pixel reached: their records must be zeros whatever the memory held before. Here the
// memory comes from a freed buffer of NaN left in the device's pool (then, for the reference, one of zeros), on an
// opaque scene whose tiles stop early (default thresholds), so that most of the dense tiles' instances are never
// reached. Whole tiles, depth chunks and strips of tile rows all give finite gradients with the zero-filled run's
// bits, and Owned gives SortReduce's: both are exact sums of the same records, in slot and in tile order.
TEST(RasterizerCuda, UnreachedInstancesGetZeroRecordsWhateverTheMemoryHeld) {
  TG_REQUIRE_CUDA();
  const int width = 320, height = 240;
  auto host = test::dense_scene(test::scaled(30000), 1, width, 77);
  for (float& o : host.opacity_logits) o = 4.0f;  // alpha up to 0.98: tiles saturate long before their lists end
  const Gaussians g = test::to_gaussians(host, Device::Cuda);
  Rasterizer r(Device::Cuda);
  const auto fwd = r.forward(g.view(), test::test_camera(width, height));
  const auto dl = Buffer<float>::from(test::random_floats(std::size_t(width) * height * 3, 78), Device::Cuda);
  // Twice the records at their widest, filled with `fill`, then freed to the pool the backward allocates from.
  const std::vector<float> nan_fill(2 * fwd.instances() * kGrad2dWidth, std::nanf("")),
      zero_fill(nan_fill.size(), 0.0f);
  auto after = [&](const std::vector<float>& fill, Accumulation mode, std::uint32_t chunk, std::size_t limit) {
    { const auto junk = Buffer<float>::from(fill, Device::Cuda); }
    BackwardSettings bs{mode};
    bs.depth_chunk = chunk;
    bs.max_record_bytes = limit;
    return r.backward(fwd, g.view(), dl.view(), {}, {}, bs);
  };
  struct Case {
    Accumulation mode;
    std::uint32_t chunk;
    std::size_t limit;
  };
  std::map<std::uint32_t, Gradients> owned_whole;  // Owned in one pass over the NaN pool, by depth chunk
  for (const Case c : {Case{Accumulation::Owned, 0, 0}, Case{Accumulation::Owned, 37, 0},
                       Case{Accumulation::Owned, 0, 1}, Case{Accumulation::SortReduce, 0, 0},
                       Case{Accumulation::SortReduce, 37, 0}}) {
    SCOPED_TRACE(::testing::Message() << to_string(c.mode) << ", chunk " << c.chunk << ", record limit " << c.limit);
    Gradients dirty = after(nan_fill, c.mode, c.chunk, c.limit);
    for (const auto& [name, field] : gradient_fields(dirty)) {
      const std::vector<float> v = field->to_vector();
      EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); })) << name;
    }
    expect_same_gradient_bits(dirty, after(zero_fill, c.mode, c.chunk, c.limit));
    if (c.limit != 0) continue;
    if (c.mode == Accumulation::Owned) {
      owned_whole.emplace(c.chunk, std::move(dirty));
    } else {
      expect_same_gradient_bits(owned_whole.at(c.chunk), dirty, "Owned against SortReduce");
    }
  }
}

TEST(RasterizerCuda, OwnedInStripsOfTileRowsBoundsTheRecords) {
  TG_REQUIRE_CUDA();
  // Large splats (tens of tiles each) so that the instance records, not the parameter gradients, set the
  // backward's peak.
  auto host = test::dense_scene(4000, 1, 640, 91);  // small at every test scale
  for (float& l : host.log_scales) l += std::log(6.0f);
  Gaussians g = test::to_gaussians(host, Device::Cuda);
  Rasterizer r(Device::Cuda);
  const Camera cam = test::test_camera(640, 480);
  const auto fwd = r.forward(g.view(), cam);
  auto dl = Buffer<float>::from(test::random_floats(640 * 480 * 3, 8), Device::Cuda);
  auto run = [&](std::size_t limit, std::size_t* peak) {
    BackwardSettings bs{Accumulation::Owned};
    bs.max_record_bytes = limit;
    synchronize(Device::Cuda);
    memory::reset_peak(Device::Cuda);
    const std::size_t before = memory::stats(Device::Cuda).current;
    Gradients out = r.backward(fwd, g.view(), dl.view(), {}, {}, bs);
    synchronize(Device::Cuda);
    *peak = memory::stats(Device::Cuda).peak - before;
    return out;
  };
  std::size_t one_pass_peak = 0;
  run(0, &one_pass_peak);  // the first call allocates the held scratch (workspace, accumulator)
  const Gradients one_pass = run(0, &one_pass_peak);
  const std::size_t records = fwd.instances() * 9 * sizeof(float);
  ASSERT_GT(records, 4 * g.count() * 26 * sizeof(float)) << "the records must dominate the gradients";
  for (std::size_t limit : {records / 3, std::size_t(1)}) {
    SCOPED_TRACE(::testing::Message() << "limit " << limit << " of " << records << " bytes");
    std::size_t peak = 0;
    const Gradients striped = run(limit, &peak);
    // Only the largest strip's records exist at once (a strip is at most a third of them plus one row).
    EXPECT_LT(peak + records / 2, one_pass_peak);
    // The same sums up to the rounding of the per-strip partial sums.
    for (auto [a, b] : {std::pair{&striped.means, &one_pass.means}, {&striped.log_scales, &one_pass.log_scales},
                        {&striped.quats, &one_pass.quats}, {&striped.opacity_logits, &one_pass.opacity_logits},
                        {&striped.sh, &one_pass.sh}, {&striped.mean2d, &one_pass.mean2d}}) {
      const Agreement ag = agreement(a->to_vector(), b->to_vector());
      EXPECT_LT(ag.relative_l2, 1e-6);
    }
    // Reproducible for a given limit.
    std::size_t again_peak = 0;
    const Gradients again = run(limit, &again_peak);
    EXPECT_TRUE(test::bitwise_equal(again.means.to_vector(), striped.means.to_vector()));
    EXPECT_TRUE(test::bitwise_equal(again.sh.to_vector(), striped.sh.to_vector()));
    EXPECT_TRUE(test::bitwise_equal(again.mean2d.to_vector(), striped.mean2d.to_vector()));
  }
  // A limit above the records changes nothing: the one-pass bits.
  std::size_t peak = 0;
  const Gradients loose = run(records + 1, &peak);
  EXPECT_TRUE(test::bitwise_equal(loose.quats.to_vector(), one_pass.quats.to_vector()));
}

TEST(RasterizerCuda, DegenerateScenes) {
  TG_REQUIRE_CUDA();
  Rasterizer r(Device::Cuda);
  const Camera cam = test::test_camera(64, 48);
  // Nothing visible: everything behind the camera, zero opacity, NaN, absurd scales.
  test::HostScene<float> s;
  s.count = 5;
  s.means = {0, 0, -3, 0, 0, 4, 0, 0, NAN, 0, 0, 4, 0, 0, 4};
  s.log_scales = {-2, -2, -2, -2, -2, -2, -2, -2, -2, -80, -80, -80, 60, 60, 60};
  s.quats = std::vector<float>(20, 0.5f);
  s.opacity_logits = {0, -40, 0, 0, 0};
  s.sh = std::vector<float>(15, 0.3f);
  Gaussians g = test::to_gaussians(s, Device::Cuda);
  const auto out = r.forward(g.view(), cam);
  Gaussians gc = test::to_gaussians(s, Device::Cpu);
  const auto out_cpu = Rasterizer(Device::Cpu).forward(gc.view(), cam);
  EXPECT_EQ(out.visible_gaussians(), out_cpu.visible_gaussians());
  EXPECT_LE(max_abs_diff(out.image.to_vector(), out_cpu.image.to_vector()), 1e-4);
  auto dl = Buffer<float>::zeros(64 * 48 * 3, Device::Cuda);
  const auto grads = r.backward(out, g.view(), dl.view());
  for (float v : grads.means.to_vector()) EXPECT_TRUE(std::isfinite(v));
  // Buffers on the wrong device.
  EXPECT_THROW(r.backward(out, g.view(), Buffer<float>::zeros(64 * 48 * 3, Device::Cpu).view()), InvalidArgument);
  EXPECT_THROW(r.forward(gc.view(), cam), InvalidArgument);
}

TEST(RasterizerCuda, ThousandsOfGaussiansInOneTile) {
  TG_REQUIRE_CUDA();
  // 5000 small Gaussians stacked in front of one 16x16 tile, semi-transparent so many contribute.
  auto s = test::dense_scene(test::scaled(5000), 0, 64, 9);
  for (std::size_t i = 0; i < s.count; ++i) {
    const float z = s.means[3 * i + 2];
    s.means[3 * i] = (8.0f - 32.0f) / (0.9f * 64) * z;
    s.means[3 * i + 1] = (8.0f - 24.0f) / (0.9f * 64) * z;
    s.opacity_logits[i] = -4.0f;
  }
  Gaussians g_gpu = test::to_gaussians(s, Device::Cuda), g_cpu = test::to_gaussians(s, Device::Cpu);
  const Camera cam = test::test_camera(64, 48);
  Rasterizer gpu(Device::Cuda), cpu(Device::Cpu);
  const RasterSettings settings = continuous_settings();
  const auto fg = gpu.forward(g_gpu.view(), cam, settings), fc = cpu.forward(g_cpu.view(), cam, settings);
  // At full scale the 12 tiles average more than 320 instances (sparse_tiles in the CUDA backend's common.cuh):
  // the blend kernels' dense variants, which evaluate fragments side by side, run here.
  if (s.count >= 5000) {
    EXPECT_GT(fg.instances(), 320u * 12u);
  }
  EXPECT_LE(max_abs_diff(fg.image.to_vector(), fc.image.to_vector()), 1e-4);
  auto dl = test::random_floats(64 * 48 * 3, 8);
  const auto grad_c = cpu.backward(fc, g_cpu.view(), Buffer<float>::from(dl, Device::Cpu).view());
  for (Accumulation mode : kAllAccumulations) {
    const auto grad_g = gpu.backward(fg, g_gpu.view(), Buffer<float>::from(dl, Device::Cuda).view(), {}, {}, {mode});
    expect_gradients_agree(grad_g, grad_c, to_string(mode));
  }
}

// Tiles of more than 65,535 instances keep their pixels' last contributors in 32 bits (contributors.cuh): two such
// tiles, in the tile order's first two places. 67,000 faint splats (opacity 0.99 min_alpha: never used, yet within
// the tile boxes' slack, so binned) fill both tiles in front of 300 visible ones, whose instances then sit past
// index 65,535 of each tile's list.
// The faint splats change nothing: image and gradients are those of the 300 alone (whose tiles hold 16-bit counts),
// for every accumulation mode (the backward's tile bands differ by mode). With the default thresholds a pixel stops
// at its last contributor, so a count read for the wrong pixel or tile, too high or too low, changes gradients.
TEST(RasterizerCuda, DenseTilesKeepTheirLastContributorsInThirtyTwoBits) {
  TG_REQUIRE_CUDA();
  constexpr int kWidth = 32, kHeight = 16;  // two tiles
  const Camera cam = test::test_camera(kWidth, kHeight);
  const float fx = cam.fx;
  std::mt19937_64 rng(65536);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  test::HostScene<float> faint, visible;
  faint.sh_degree = visible.sh_degree = 0;
  // A splat centred on pixel (px, py) at depth z, sigma_px pixels wide.
  auto add = [&](test::HostScene<float>& s, float px, float py, float z, float sigma_px, float logit) {
    ++s.count;
    s.means.insert(s.means.end(), {(px - cam.cx) / fx * z, (py - cam.cy) / cam.fy * z, z});
    for (int a = 0; a < 3; ++a) s.log_scales.push_back(std::log(sigma_px * z / fx));
    s.quats.insert(s.quats.end(), {1.0f, 0.0f, 0.0f, 0.0f});
    s.opacity_logits.push_back(logit);
    for (int c = 0; c < 3; ++c) s.sh.push_back(2.0f * unit(rng) - 1.0f);
  };
  // Faint, at depths 2..3: 66,000 on the border of the two tiles, 1,000 more in tile 0 alone.
  const float p = 0.99f * RasterSettings{}.thresholds.min_alpha, faint_logit = std::log(p / (1.0f - p));
  for (int i = 0; i < 66000; ++i) add(faint, 16.0f, 8.0f, 2.0f + unit(rng), 6.0f, faint_logit);
  for (int i = 0; i < 1000; ++i) add(faint, 6.0f, 8.0f, 2.0f + unit(rng), 1.0f, faint_logit);
  // Visible, behind them (depths 3.2..4): opaque enough that most pixels stop early.
  for (int i = 0; i < 300; ++i)
    add(visible, kWidth * unit(rng), kHeight * unit(rng), 3.2f + 0.8f * unit(rng), 2.0f + 2.0f * unit(rng),
        1.0f + 2.0f * unit(rng));
  test::HostScene<float> both = faint;
  for (std::size_t k = 0; k < both.groups().size(); ++k)
    both.groups()[k]->insert(both.groups()[k]->end(), visible.groups()[k]->begin(), visible.groups()[k]->end());
  both.count += visible.count;
  const Gaussians g_both = test::to_gaussians(both, Device::Cuda);
  const Gaussians g_visible = test::to_gaussians(visible, Device::Cuda);
  Rasterizer r(Device::Cuda);
  const auto f_both = r.forward(g_both.view(), cam), f_visible = r.forward(g_visible.view(), cam);
  ASSERT_GE(f_both.instances(), 2 * 66000 + 1000) << "every faint splat in its tiles";
  EXPECT_TRUE(test::bitwise_equal(f_both.image.to_vector(), f_visible.image.to_vector()));
  EXPECT_TRUE(test::bitwise_equal(f_both.alpha.to_vector(), f_visible.alpha.to_vector()));
  const auto dl = Buffer<float>::from(test::random_floats(kWidth * kHeight * 3, 17), Device::Cuda);
  const std::size_t first_visible = faint.count;
  for (Accumulation mode : kAllAccumulations) {
    SCOPED_TRACE(to_string(mode));
    const Gradients a = r.backward(f_both, g_both.view(), dl.view(), {}, {}, {mode});
    const Gradients b = r.backward(f_visible, g_visible.view(), dl.view(), {}, {}, {mode});
    for (const auto& [name, x, y, per] :
         {std::tuple{"means", &a.means, &b.means, 3}, std::tuple{"log_scales", &a.log_scales, &b.log_scales, 3},
          std::tuple{"quats", &a.quats, &b.quats, 4},
          std::tuple{"opacity_logits", &a.opacity_logits, &b.opacity_logits, 1},
          std::tuple{"sh", &a.sh, &b.sh, 3}, std::tuple{"mean2d", &a.mean2d, &b.mean2d, 2}}) {
      const std::vector<float> all = x->to_vector();
      const std::vector<float> faint_part(all.begin(), all.begin() + first_visible * per),
          visible_part(all.begin() + first_visible * per, all.end());
      EXPECT_EQ(max_abs_diff(faint_part, std::vector<float>(faint_part.size(), 0.0f)), 0.0) << name;
      const Agreement ag = agreement(visible_part, y->to_vector());
      EXPECT_LT(ag.relative_l2, 1e-5) << name;
      EXPECT_GT(ag.cosine, 0.999999) << name;
    }
  }
}

// The CUDA backend keeps scratch between calls (workspace slots grow, never shrink) and sizes its per-call buffers
// by the frame. One rasterizer rendering several image sizes in a row (larger, smaller, then the first again) gives,
// for each, the image and Owned gradients of a fresh rasterizer bit for bit, and the CPU reference's gradients.
TEST(RasterizerCuda, OwnedBitsDoNotDependOnTheFramesRenderedBefore) {
  TG_REQUIRE_CUDA();
  const int sizes[][2] = {{320, 240}, {640, 480}, {96, 64}, {320, 240}, {1280, 720}, {96, 64}};
  auto host = test::dense_scene(test::scaled(20000), 2, 320, 4242);
  const Gaussians g = test::to_gaussians(host, Device::Cuda), g_cpu = test::to_gaussians(host, Device::Cpu);
  const RasterSettings settings = continuous_settings();
  Rasterizer reused(Device::Cuda);
  for (const auto& [width, height] : sizes) {
    SCOPED_TRACE(::testing::Message() << width << "x" << height);
    const Camera cam = test::test_camera(width, height);
    const std::size_t pixels = std::size_t(width) * height;
    const auto dl_host = test::random_floats(pixels * 3, 31 + pixels);
    const auto dl = Buffer<float>::from(dl_host, Device::Cuda);
    Rasterizer fresh(Device::Cuda), cpu(Device::Cpu);
    const auto f_reused = reused.forward(g.view(), cam, settings), f_fresh = fresh.forward(g.view(), cam, settings);
    EXPECT_TRUE(test::bitwise_equal(f_reused.image.to_vector(), f_fresh.image.to_vector()));
    const Gradients a = reused.backward(f_reused, g.view(), dl.view());
    const Gradients b = fresh.backward(f_fresh, g.view(), dl.view());
    expect_same_gradient_bits(a, b);
    const auto f_cpu = cpu.forward(g_cpu.view(), cam, settings);
    expect_gradients_agree(a, cpu.backward(f_cpu, g_cpu.view(), Buffer<float>::from(dl_host, Device::Cpu).view()),
                           "Owned after other sizes");
  }
}

// The peak of one forward + Owned backward (what `tilegrad profile raster` reports) is the moment of the reduction,
// and it holds exactly these buffers (docs/PERFORMANCE.md has the table): the outputs and per-pixel state, the
// packed forward state, grad2d and the instance records, plus the small scratch held in workspace slots (the
// tile order's sort, scans). A buffer kept larger than its contents, or one more, shows up here.
TEST(RasterizerCuda, ForwardBackwardPeakIsTheAccountedBuffers) {
  TG_REQUIRE_CUDA();
  auto host = test::dense_scene(4000, 1, 640, 93);  // large splats: the records set the peak
  for (float& l : host.log_scales) l += std::log(6.0f);
  const Gaussians g = test::to_gaussians(host, Device::Cuda);
  const Camera cam = test::test_camera(640, 480);
  const std::size_t pixels = 640 * 480, tiles = 40 * 30, words = (g.count() + 31) / 32;
  const auto dl = Buffer<float>::from(test::random_floats(pixels * 3, 23), Device::Cuda);
  Rasterizer r(Device::Cuda);
  synchronize(Device::Cuda);
  memory::reset_peak(Device::Cuda);
  const std::size_t before = memory::stats(Device::Cuda).current;
  std::size_t visible = 0, instances = 0;
  {
    const auto out = r.forward(g.view(), cam);
    visible = out.visible_gaussians();
    instances = out.instances();
    const auto grads = r.backward(out, g.view(), dl.view(), {}, {}, {Accumulation::Owned});
    synchronize(Device::Cuda);
  }
  const std::size_t peak = memory::stats(Device::Cuda).peak - before;
  const std::size_t f = sizeof(float), u = sizeof(std::uint32_t);
  const std::size_t per_pixel = pixels * (3 * f + f + f + sizeof(std::uint16_t)) +  // image, alpha, T, contributors
                                instances / 65536 * 256 * u;                      // dense tiles' contributors
  const std::size_t state = visible * (kProjWidth * f + 1 + u) + u +  // projection, clamped, offsets [V + 1]
                            instances * u +                           // sorted visible indices
                            (2 * tiles + 1) * u + (2 * words + 1) * u;  // tile start and order, visibility
  const std::size_t backward = visible * kGrad2dCoreWidth * f + instances * kGrad2dCoreWidth * f;  // grad2d, records
  const std::size_t gradients = g.count() * (3 + 3 + 4 + 1 + 12 + 2) * f;
  ASSERT_GT(instances * kGrad2dCoreWidth * f, gradients) << "the reduction's moment must be the peak";
  const std::size_t expected = per_pixel + state + backward;
  EXPECT_GE(peak, expected);
  EXPECT_LE(peak, expected + 128 * 1024 + 64 * tiles) << "beyond the accounted buffers";
}

TEST(RasterizerCuda, EqualDepthsCompositeInIndexOrder) {
  TG_REQUIRE_CUDA();
  // Opaque-ish splats of distinct colours stacked at three exactly equal depths, overlapping across several
  // tiles: the composite depends on how ties are ordered. The reference sorts by (tile, depth, index); the
  // CUDA binning (a depth sort of the Gaussians, then a tile sort of their instances) must give the same order.
  const test::HostScene<float> s = equal_depths_scene();
  Gaussians g_gpu = test::to_gaussians(s, Device::Cuda), g_cpu = test::to_gaussians(s, Device::Cpu);
  const Camera cam = test::test_camera(96, 64);
  const RasterSettings settings = continuous_settings();
  Rasterizer gpu(Device::Cuda), cpu(Device::Cpu);
  const auto fg = gpu.forward(g_gpu.view(), cam, settings), fc = cpu.forward(g_cpu.view(), cam, settings);
  ASSERT_GT(fc.instances(), 4 * s.count);  // splats span several tiles
  EXPECT_LE(max_abs_diff(fg.image.to_vector(), fc.image.to_vector()), 1e-4);
  const auto dl = test::random_floats(96 * 64 * 3, 5);
  const auto grad_c = cpu.backward(fc, g_cpu.view(), Buffer<float>::from(dl, Device::Cpu).view());
  const auto grad_g = gpu.backward(fg, g_gpu.view(), Buffer<float>::from(dl, Device::Cuda).view());
  expect_gradients_agree(grad_g, grad_c, "owned");
}

// With TILEGRAD_PORTABLE_MATH the two backends run the same arithmetic: the same exp, log and rsqrt, no fused
// multiply-adds but the explicit ones, and the CPU sums each tile's per-instance records in the warps' order. The
// deterministic modes then give the CPU's bits on the GPU.
TEST(RasterizerCuda, PortableMathGivesTheCpuBits) {
  TG_REQUIRE_CUDA();
  if (!kPortableMath)
    GTEST_SKIP() << "needs a build with TILEGRAD_PORTABLE_MATH=ON (the backends' math differs otherwise)";
  struct Case {
    std::size_t count;
    int sh_degree;
    bool colors, antialiased, depth_loss;
  };
  const Case cases[] = {{test::scaled(20000), 3, false, false, false},
                        {test::scaled(8000), 1, true, true, true},
                        {test::scaled(30000), 2, false, true, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.count << " Gaussians, SH " << c.sh_degree << (c.colors ? ", colours" : "")
                                      << (c.antialiased ? ", antialiased" : "") << (c.depth_loss ? ", depth" : ""));
    auto host = test::dense_scene(c.count, c.sh_degree, 320, 500 + c.count);
    if (c.colors)
      for (std::size_t i = 0; i < host.count * 3; ++i) host.colors.push_back(0.2f + 0.6f * float(i % 7) / 7.0f);
    Gaussians g_cpu = test::to_gaussians(host, Device::Cpu), g_gpu = test::to_gaussians(host, Device::Cuda);
    RasterSettings settings;  // the default thresholds: every skip and stop must agree too
    settings.antialiased = c.antialiased;
    settings.render_depth = true;
    settings.background[1] = 0.25f;
    const Camera cam = test::rotated_camera(320, 240, 0.15f);
    Rasterizer cpu(Device::Cpu), gpu(Device::Cuda);
    const auto f_cpu = cpu.forward(g_cpu.view(), cam, settings), f_gpu = gpu.forward(g_gpu.view(), cam, settings);
    EXPECT_EQ(f_gpu.instances(), f_cpu.instances());
    EXPECT_TRUE(test::bitwise_equal(f_gpu.image.to_vector(), f_cpu.image.to_vector()));
    EXPECT_TRUE(test::bitwise_equal(f_gpu.alpha.to_vector(), f_cpu.alpha.to_vector()));
    EXPECT_TRUE(test::bitwise_equal(f_gpu.depth.to_vector(), f_cpu.depth.to_vector()));
    const std::size_t pixels = 320 * 240;
    const auto d_image = Buffer<float>::from(test::random_floats(pixels * 3, 1), Device::Cpu);
    const auto d_depth = Buffer<float>::from(test::random_floats(pixels, 2, -0.05f, 0.05f), Device::Cpu);
    const auto gi = d_image.to(Device::Cuda), gd = d_depth.to(Device::Cuda);
    const View<const float> cpu_depth = c.depth_loss ? d_depth.view() : View<const float>{};
    const View<const float> gpu_depth = c.depth_loss ? gd.view() : View<const float>{};
    for (Accumulation mode : {Accumulation::Owned, Accumulation::SortReduce}) {
      const BackwardSettings bs{mode, c.depth_loss};
      const Gradients a = cpu.backward(f_cpu, g_cpu.view(), d_image.view(), {}, cpu_depth, bs);
      const Gradients b = gpu.backward(f_gpu, g_gpu.view(), gi.view(), {}, gpu_depth, bs);
      expect_same_gradient_bits(b, a, to_string(mode));
    }
  }
}

// The original 3DGS binning (one thrust sort of 8-byte tile | depth keys) orders the instances as the default
// two-pass CUB binning does, ties in depth included: the same image and Owned gradients, bit for bit. Its
// temporaries go through tilegrad's allocator, so the binning stage's measured peak holds thrust's double
// buffers (12 more bytes per instance) on top of the keys and values.
TEST(RasterizerCuda, ThrustBinningGivesTheCubBits) {
  TG_REQUIRE_CUDA();
  struct Case {
    test::HostScene<float> scene;
    Camera camera;
  };
  const Case cases[] = {{test::dense_scene(test::scaled(50000), 3, 320, 91), test::test_camera(320, 240)},
                        {equal_depths_scene(), test::test_camera(96, 64)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.scene.count << " Gaussians, " << c.camera.width << "x" << c.camera.height);
    const Gaussians g = test::to_gaussians(c.scene, Device::Cuda);
    const auto dl = Buffer<float>::from(
        test::random_floats(std::size_t(c.camera.width) * c.camera.height * 3, 13), Device::Cuda);
    Rasterizer r(Device::Cuda);
    r.set_timing(true);
    RasterSettings cub_settings, thrust_settings;
    thrust_settings.binning = Binning::ThrustKeys;
    const auto f_cub = r.forward(g.view(), c.camera, cub_settings);
    const auto f_thrust = r.forward(g.view(), c.camera, thrust_settings);
    const std::size_t thrust_sort_peak = r.last_times().sort_peak_bytes;
    ASSERT_EQ(f_thrust.instances(), f_cub.instances());
    ASSERT_GT(f_cub.instances(), 2 * c.scene.count);
    EXPECT_GE(thrust_sort_peak, 24 * f_thrust.instances());
    EXPECT_TRUE(test::bitwise_equal(f_thrust.image.to_vector(), f_cub.image.to_vector()));
    EXPECT_TRUE(test::bitwise_equal(f_thrust.alpha.to_vector(), f_cub.alpha.to_vector()));
    BackwardSettings owned{Accumulation::Owned};
    owned.absolute_mean2d = true;
    const auto g_cub = r.backward(f_cub, g.view(), dl.view(), {}, {}, owned);
    const auto g_thrust = r.backward(f_thrust, g.view(), dl.view(), {}, {}, owned);
    expect_same_gradient_bits(g_thrust, g_cub);
  }
}

// An image the GPU cannot hold (2e10 pixels: the RGB image alone is 240 GB) is an OutOfMemory that names the
// forward's stage and the bytes it asked for, not a crash; nothing leaks, and the device renders on.
TEST(RasterizerCuda, AnImageTooLargeForTheGpuIsAnOutOfMemoryNamingItsStage) {
  TG_REQUIRE_CUDA();
  const Gaussians g = test::to_gaussians(test::dense_scene(1000, 0, 128, 5), Device::Cuda);
  Camera huge = test::test_camera(128, 96);  // the scene stays in the top-left 128x96 pixels: few instances
  huge.width = 200000;
  huge.height = 100000;
  const std::size_t held = memory::stats(Device::Cuda).current;
  {
    Rasterizer r(Device::Cuda);
    try {
      (void)r.forward(g.view(), huge);
      FAIL() << "rendered 2e10 pixels";
    } catch (const OutOfMemory& e) {
      EXPECT_EQ(e.stage().rfind("rasterizer forward", 0), 0u) << e.stage();
      EXPECT_GE(e.bytes(), std::size_t(1) << 30);
      EXPECT_NE(std::string(e.what()).find(e.stage()), std::string::npos) << e.what();
    }
    const auto small = r.forward(g.view(), test::test_camera(128, 96));
    EXPECT_EQ(small.image.size(), std::size_t(128) * 96 * 3);
  }
  EXPECT_EQ(memory::stats(Device::Cuda).current, held);
}
