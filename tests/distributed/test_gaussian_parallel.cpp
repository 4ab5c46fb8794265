// Gaussian-partitioned training with simulated ranks: one rank is the plain trainer bit for bit; the first step's
// gradients (in the Adam moments) and density statistics match the plain trainer's to rounding for 2, 3 and 5
// ranks; a fixed number of ranks is bitwise reproducible; parts stay balanced; trained models come close to the
// plain trainer's; evaluation and assembled renders match the whole model's; resume equals uninterrupted; views
// with valid-pixel masks (undistortion borders) give the plain trainer's first step too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fixtures.h"
#include "tilegrad/distributed/distributed_trainer.h"
#include "tilegrad/distributed/partition.h"
#include "tilegrad/distributed/rank_threads.h"
#include "tilegrad/distributed/rebalance.h"
#include "tilegrad/training/checkpoint.h"
#include "tilegrad/training/outputs.h"
#include "tilegrad/training/trainer.h"

using namespace tilegrad;
using namespace tilegrad::distributed;
using training::GaussianModel;
using training::Parallelism;
using training::TrainConfig;
using training::Trainer;

namespace {

TrainConfig partitioned(const TrainConfig& c, int ranks) {
  return test::with_ranks(c, ranks, Parallelism::Gaussians);
}

// The plain trainer started from the partitioned run's initial model: the same Gaussians in spatial order.
void initialize_like_partitioned(Trainer& t, const TrainConfig& c, const training::TrainingDataset& data) {
  t.initialize(spatially_ordered(training::initial_gaussians(c, data)));
}

// Every array of the model after a run (test::model_arrays): of the plain trainer started like the partitioned
// one, and of the partitioned trainer on `ranks` simulated ranks.
std::vector<std::vector<float>> plain_run_arrays(const TrainConfig& c, const training::TrainingDataset& data) {
  Trainer t(c, data);
  initialize_like_partitioned(t, c, data);
  t.run({});
  return test::model_arrays(t.model());
}
std::vector<std::vector<float>> partitioned_run_arrays(const TrainConfig& c, const training::TrainingDataset& data,
                                                       int ranks) {
  DistributedTrainer t(partitioned(c, ranks), data, make_simulated_group(ranks));
  t.initialize();
  t.run({});
  return test::model_arrays(t.model());
}

// max |a - b| / max |b| over one array.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double scale = 0, worst = 0;
  for (float x : b) scale = std::max(scale, double(std::fabs(x)));
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
  return scale > 0 ? worst / scale : worst;
}

// Every view of `data` given a valid-pixel mask: a disc of radius 0.45 x the width, as a full-frame undistortion
// leaves (its corners do not count for the loss).
void add_disc_masks(training::TrainingDataset& data) {
  for (std::vector<training::TrainingView>* views : {&data.train, &data.test})
    for (training::TrainingView& v : *views) {
      const int w = v.camera.width, h = v.camera.height;
      std::vector<std::uint8_t> valid(std::size_t(w) * std::size_t(h));
      const float r = 0.45f * float(w);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const float dx = float(x) + 0.5f - 0.5f * float(w), dy = float(y) + 0.5f - 0.5f * float(h);
          valid[std::size_t(y) * std::size_t(w) + std::size_t(x)] = dx * dx + dy * dy < r * r ? 1 : 0;
        }
      v.valid_pixels = std::size_t(std::count(valid.begin(), valid.end(), std::uint8_t(1)));
      v.valid = Buffer<std::uint8_t>::from(valid, v.image.device());
    }
}

}  // namespace

// Whatever the old ranges (a part empty, one rank holding everything) and the new ones, every rank ends with its
// new range of the whole model's rows, parameters, moments and statistics, the Adam step kept and the parameter
// version bumped.
TEST(GaussianParallel, RebalancedPartsAreTheNewRangesOfTheWholeModel) {
  GaussianModel whole = test::random_model(101);
  whole.adam_step = 7;
  const std::vector<std::vector<std::size_t>> ranges = {
      {0, 50, 60, 101}, {0, 1, 100, 101}, {0, 101, 101, 101}, {0, 0, 0, 101}, balanced_ranges(101, 3)};
  for (const std::vector<std::size_t>& old_begin : ranges)
    for (const std::vector<std::size_t>& new_begin : ranges) {
      CommGroup group = make_simulated_group(3);
      RankThreads threads(group);
      std::vector<GaussianModel> parts(3);
      threads.run([&](int r) {
        const std::size_t i = std::size_t(r);
        GaussianModel part = test::model_rows(whole, old_begin[i], old_begin[i + 1] - old_begin[i]);
        part.params.version = 3;
        parts[i] = rebalanced_part(threads.comm(r), part, old_begin, new_begin);
      });
      for (std::size_t i = 0; i < 3; ++i) {
        const std::size_t first = new_begin[i], count = new_begin[i + 1] - first;
        ASSERT_EQ(parts[i].count(), count) << "rank " << i;
        EXPECT_TRUE(test::identical_models(parts[i], test::model_rows(whole, first, count))) << "rank " << i;
        EXPECT_EQ(parts[i].adam_step, 7);
        EXPECT_EQ(parts[i].params.version, 4u);
      }
    }
}

TEST(GaussianParallel, OneRankIsThePlainTrainerBitForBit) {
  const training::TrainingDataset data = test::load_scene(64);
  const TrainConfig config = test::tiny_config(130);
  Trainer plain(config, data);
  initialize_like_partitioned(plain, config, data);
  ASSERT_TRUE(plain.run({}));
  DistributedTrainer one(partitioned(config, 1), data, make_simulated_group(1));
  one.initialize();
  ASSERT_TRUE(one.run({}));
  EXPECT_NE(plain.model().count(), config.init_points);
  EXPECT_TRUE(test::identical_models(plain.model(), one.model()));
  EXPECT_EQ(one.evaluate(data.test).psnr, plain.evaluate(data.test).psnr);
}

TEST(GaussianParallel, FirstStepGradientsAndStatisticsMatchThePlainTrainer) {
  const training::TrainingDataset data = test::load_scene(64);
  const TrainConfig config = test::tiny_config(1);
  const std::vector<std::vector<float>> reference = plain_run_arrays(config, data);
  for (int ranks : {2, 3, 5}) {
    const std::vector<std::vector<float>> arrays = partitioned_run_arrays(config, data, ranks);
    // Arrays 5..9: Adam's first moments, 0.1 x the gradient of each parameter group; 15: the NDC gradient norm;
    // 16: the view count (exact); 17: the footprint radius (exact).
    double worst = 0;
    for (std::size_t k = 5; k < 10; ++k) {
      EXPECT_LT(relative_difference(arrays[k], reference[k]), 1e-5) << ranks << " ranks, array " << k;
      worst = std::max(worst, relative_difference(arrays[k], reference[k]));
    }
    std::printf("%d ranks: first-step gradients differ by at most %.3g of their arrays' largest entries\n", ranks,
                worst);
    EXPECT_LT(relative_difference(arrays[15], reference[15]), 1e-4) << ranks << " ranks";
    EXPECT_TRUE(test::bitwise_equal(arrays[16], reference[16])) << ranks << " ranks";
    EXPECT_TRUE(test::bitwise_equal(arrays[17], reference[17])) << ranks << " ranks";
  }
}

TEST(GaussianParallel, MaskedViewsFirstStepMatchesThePlainTrainer) {
  // Masked losses on cropped windows: each rank's region counts its valid pixels, the means are the whole view's.
  training::TrainingDataset data = test::load_scene(64);
  const TrainConfig config = test::tiny_config(1);
  const std::vector<std::vector<float>> unmasked = plain_run_arrays(config, data);
  add_disc_masks(data);
  Trainer plain(config, data);
  initialize_like_partitioned(plain, config, data);
  plain.run({});
  const std::vector<std::vector<float>> reference = test::model_arrays(plain.model());
  EXPECT_GT(relative_difference(unmasked[5], reference[5]), 1e-3) << "the mask does not change the gradients";
  for (int ranks : {2, 3}) {
    const std::vector<std::vector<float>> arrays = partitioned_run_arrays(config, data, ranks);
    for (std::size_t k = 5; k < 10; ++k)
      EXPECT_LT(relative_difference(arrays[k], reference[k]), 1e-5) << ranks << " ranks, array " << k;
  }
  DistributedTrainer one(partitioned(config, 1), data, make_simulated_group(1));
  one.initialize();
  one.run({});
  EXPECT_TRUE(test::identical_models(plain.model(), one.model()));
  EXPECT_EQ(one.evaluate(data.test).psnr, plain.evaluate(data.test).psnr);
}

TEST(GaussianParallel, ReproducibleBalancedAndCloseToThePlainTrainer) {
  const training::TrainingDataset data = test::load_scene(64);
  const TrainConfig config = test::tiny_config(150);
  Trainer plain(config, data);
  initialize_like_partitioned(plain, config, data);
  ASSERT_TRUE(plain.run({}));
  const double plain_psnr = plain.evaluate(data.test).psnr;
  DistributedTrainer a(partitioned(config, 3), data, make_simulated_group(3));
  a.initialize();
  ASSERT_TRUE(a.run({}));
  DistributedTrainer b(partitioned(config, 3), data, make_simulated_group(3));
  b.initialize();
  ASSERT_TRUE(b.run({}));
  EXPECT_TRUE(test::identical_models(a.model(), b.model()));

  const DistributedReport report = a.report();
  std::size_t smallest = SIZE_MAX, largest = 0;
  for (const RankReport& r : report.per_rank) {
    smallest = std::min(smallest, r.gaussians);
    largest = std::max(largest, r.gaussians);
    EXPECT_GT(r.bytes_per_iteration, 0.0);
  }
  EXPECT_LE(largest - smallest, 1u);
  EXPECT_EQ(report.views_per_iteration, 1);

  const double psnr = a.evaluate(data.test).psnr;
  const double counts = double(a.model().count()) / double(plain.model().count());
  double means = INFINITY;
  if (a.model().count() == plain.model().count())
    means = relative_difference(a.model().params.means.to_vector(), plain.model().params.means.to_vector());
  std::printf("plain %.3f dB (%zu Gaussians), 3 ranks %.3f dB (%zu Gaussians); positions differ by %.3g of the "
              "largest\n",
              plain_psnr, plain.model().count(), psnr, a.model().count(), means);
  // Not bitwise: each rank's exact sum of a Gaussian's tiles rounds once, then the owner adds the ranks' sums,
  // and crop cameras round projected centres differently; densification thresholds then amplify the differences.
  EXPECT_NEAR(psnr, plain_psnr, 0.5);
  EXPECT_GT(counts, 0.85);
  EXPECT_LT(counts, 1.15);
}

TEST(GaussianParallel, MoreRanksThanTilesStillTrain) {
  const training::TrainingDataset data = test::load_scene(32);  // 2 x 2 tiles for 6 ranks: two get no region
  const TrainConfig config = test::tiny_config(90);
  Trainer plain(config, data);
  initialize_like_partitioned(plain, config, data);
  plain.run({});
  DistributedTrainer t(partitioned(config, 6), data, make_simulated_group(6));
  t.initialize();
  Trainer::RunHooks hooks;
  hooks.report = [](const training::Progress& p) { EXPECT_TRUE(std::isfinite(p.loss)); };
  ASSERT_TRUE(t.run(hooks));
  EXPECT_NEAR(t.evaluate(data.test).psnr, plain.evaluate(data.test).psnr, 0.5);
}

TEST(GaussianParallel, EvaluationAndRendersMatchTheWholeModel) {
  const training::TrainingDataset data = test::load_scene(64);
  DistributedTrainer t(partitioned(test::tiny_config(60), 3), data, make_simulated_group(3));
  t.initialize();
  t.run({});
  std::vector<std::vector<float>> renders;
  const training::Evaluation e =
      t.evaluate(data.test, [&](std::size_t, const training::TrainingView&, const raster::ForwardOutput& out) {
        renders.push_back(out.image.to_vector());
      });
  // The same model on one device.
  TrainConfig c = test::tiny_config(60);
  Trainer whole(c, data);
  whole.initialize(t.model().params.to(Device::Cpu));
  std::vector<std::vector<float>> reference;
  const training::Evaluation r =
      whole.evaluate(data.test, [&](std::size_t, const training::TrainingView&, const raster::ForwardOutput& out) {
        reference.push_back(out.image.to_vector());
      });
  ASSERT_EQ(renders.size(), data.test.size());
  ASSERT_EQ(e.views.size(), r.views.size());
  for (std::size_t i = 0; i < e.views.size(); ++i) {
    EXPECT_NEAR(e.views[i].psnr, r.views[i].psnr, 1e-3);
    EXPECT_NEAR(e.views[i].ssim, r.views[i].ssim, 1e-5);
    EXPECT_LT(relative_difference(renders[i], reference[i]), 1e-4);
  }
}

TEST(GaussianParallel, ResumedEqualsUninterrupted) {
  const training::TrainingDataset data = test::load_scene(64);
  TrainConfig config = partitioned(test::tiny_config(100), 2);
  config.checkpoint_every = 20;  // periodic checkpoints gather the parts too
  test::TempDir dir;
  DistributedTrainer first(config, data, make_simulated_group(2));
  first.initialize();
  Trainer::RunHooks hooks;
  hooks.stop = [&] { return first.iteration() >= 50; };
  hooks.checkpoint_path = dir.file("periodic.bin");
  EXPECT_FALSE(first.run(hooks));
  EXPECT_EQ(training::load_checkpoint(dir.file("periodic.bin")).iteration, 40);
  first.save_checkpoint(dir.file("c.bin"));
  const training::Checkpoint saved = training::load_checkpoint(dir.file("c.bin"));
  EXPECT_EQ(saved.model.count(), first.model().count());  // the whole model, gathered
  DistributedTrainer resumed(config, data, make_simulated_group(2));
  resumed.resume(dir.file("c.bin"));
  ASSERT_TRUE(resumed.run({}));
  DistributedTrainer whole(config, data, make_simulated_group(2));
  whole.initialize();
  ASSERT_TRUE(whole.run({}));
  EXPECT_TRUE(test::identical_models(resumed.model(), whole.model()));
}
