// Data-parallel training with simulated ranks: one rank is the plain trainer bit for bit (same .ply bytes); a
// fixed number of ranks is bitwise reproducible and its replicas stay identical; it learns; diverged replicas are
// detected; interrupted + resumed = uninterrupted; a checkpoint resumes only with the same ranks and mode.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include "fixtures.h"
#include "tilegrad/distributed/distributed_trainer.h"
#include "tilegrad/distributed/rank_threads.h"
#include "tilegrad/distributed/replicas.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/trainer.h"

using namespace tilegrad;
using namespace tilegrad::distributed;
using training::Parallelism;
using training::TrainConfig;
using training::Trainer;

namespace {

TrainConfig data_parallel(const TrainConfig& c, int ranks) { return test::with_ranks(c, ranks, Parallelism::Data); }

}  // namespace

TEST(DataParallel, OneRankIsThePlainTrainerBitForBit) {
  const training::TrainingDataset data = test::load_scene(32);
  const TrainConfig config = test::tiny_config(160);
  Trainer plain(config, data);
  plain.initialize();
  ASSERT_TRUE(plain.run({}));
  DistributedTrainer one(data_parallel(config, 1), data, make_simulated_group(1));
  one.initialize();
  ASSERT_TRUE(one.run({}));
  EXPECT_NE(plain.model().count(), config.init_points);  // densification and pruning ran
  EXPECT_TRUE(test::identical_models(plain.model(), one.model()));
  test::TempDir dir;
  io::write_gaussians_ply(dir.file("plain.ply"), plain.model().params);
  io::write_gaussians_ply(dir.file("one.ply"), one.model().params);
  EXPECT_EQ(test::file_bytes(dir.file("plain.ply")), test::file_bytes(dir.file("one.ply")));
  EXPECT_EQ(one.evaluate(data.test).psnr, plain.evaluate(data.test).psnr);
}

TEST(DataParallel, FixedRanksAreReproducibleReplicasAgreeAndItLearns) {
  const training::TrainingDataset data = test::load_scene(32);
  const TrainConfig config = data_parallel(test::tiny_config(160), 3);
  DistributedTrainer a(config, data, make_simulated_group(3));
  a.initialize();
  const double before = a.evaluate(data.test).psnr;
  int reports = 0;
  Trainer::RunHooks hooks;
  hooks.report = [&](const training::Progress& p) {
    ++reports;
    EXPECT_TRUE(std::isfinite(p.loss));
    EXPECT_NE(p.distributed.find("\"per_rank\""), std::string::npos);
  };
  ASSERT_TRUE(a.run(hooks));
  EXPECT_EQ(reports, 160 / 20);
  const std::vector<std::uint64_t> hashes = a.rank_model_hashes();
  EXPECT_EQ(hashes[1], hashes[0]);
  EXPECT_EQ(hashes[2], hashes[0]);
  DistributedTrainer b(config, data, make_simulated_group(3));
  b.initialize();
  ASSERT_TRUE(b.run({}));
  EXPECT_TRUE(test::identical_models(a.model(), b.model()));
  const double after = a.evaluate(data.test).psnr;
  std::printf("3 ranks: test PSNR %.2f dB -> %.2f dB, %zu Gaussians\n", before, after, a.model().count());
  EXPECT_GT(after, before + 7.0);
  // Three views per iteration: another model than one rank's.
  DistributedTrainer one(data_parallel(test::tiny_config(160), 1), data, make_simulated_group(1));
  one.initialize();
  one.run({});
  EXPECT_FALSE(test::identical_models(a.model(), one.model()));

  const DistributedReport report = a.report();
  ASSERT_EQ(report.per_rank.size(), 3u);
  EXPECT_EQ(report.views_per_iteration, 3);
  for (const RankReport& r : report.per_rank) {
    EXPECT_EQ(r.gaussians, a.model().count());
    EXPECT_GT(r.step_ms, 0.0);
    EXPECT_GT(r.communication_ms, 0.0);
    // At least the exact sum of the 5 gradient arrays: 9 bytes per float of the initial 600 Gaussians x 15 floats.
    EXPECT_GT(r.bytes_per_iteration, 9.0 * 15 * 300);
  }
  EXPECT_GT(report.communication_share(), 0.0);
}

// The replicas' hash sees every bit of every array (the lowest mantissa bit of the first and of the last float,
// which is alone in its 64-bit word when the array's size is odd; the sign of a zero) and the Adam step. 20,001
// Gaussians: arrays of more than 16,384 words are summed by several threads.
TEST(DataParallel, ModelHashSeesEveryBitOfEveryArray) {
  for (std::size_t n : {std::size_t(5), std::size_t(20001)}) {
    const training::GaussianModel model = test::random_model(n);
    const std::uint64_t h = model_hash(model);
    EXPECT_EQ(model_hash(model.to(Device::Cpu)), h);
    for (std::size_t a = 0; a < training::GaussianModel::kArrays; ++a) {
      const std::size_t size = model.arrays()[a]->size();
      for (std::size_t at : {std::size_t(0), size - 1}) {
        training::GaussianModel other = model.to(Device::Cpu);
        float& x = other.arrays()[a]->data()[at];
        std::uint32_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        bits ^= 1u;
        std::memcpy(&x, &bits, sizeof bits);
        EXPECT_NE(model_hash(other), h) << "n " << n << ", array " << a << " of " << size << ", element " << at;
      }
    }
    training::GaussianModel zero = model.to(Device::Cpu), negative_zero = model.to(Device::Cpu);
    zero.view_count.data()[1] = 0.0f;
    negative_zero.view_count.data()[1] = -0.0f;
    EXPECT_NE(model_hash(zero), model_hash(negative_zero));
    training::GaussianModel stepped = model.to(Device::Cpu);
    ++stepped.adam_step;
    EXPECT_NE(model_hash(stepped), h);
  }
}

TEST(DataParallel, DivergedReplicasAreReportedOnEveryRank) {
  const training::TrainingDataset data = test::load_scene(32);
  training::GaussianModel model =
      training::GaussianModel::from_parameters(training::initial_gaussians(test::tiny_config(10), data));
  training::GaussianModel other = model.to(Device::Cpu);
  other.params.sh.data()[7] = std::nextafter(other.params.sh.data()[7], 1.0f);  // one bit
  EXPECT_NE(model_hash(model), model_hash(other));
  EXPECT_EQ(model_hash(model), model_hash(model.to(Device::Cpu)));
  CommGroup group = make_simulated_group(3);
  RankThreads threads(group);
  int errors = 0;
  std::mutex m;
  threads.run([&](int r) {
    try {
      verify_replicas(threads.comm(r), r == 2 ? other : model, 100);
    } catch (const Error& e) {
      std::lock_guard<std::mutex> lock(m);
      ++errors;
      EXPECT_NE(std::string(e.what()).find("rank(s) 2 differs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("iteration 100"), std::string::npos) << e.what();
    }
  });
  EXPECT_EQ(errors, 3);
}

TEST(DataParallel, ResumedEqualsUninterruptedAndRanksMustMatch) {
  const training::TrainingDataset data = test::load_scene(32);
  const TrainConfig config = data_parallel(test::tiny_config(130), 2);
  test::TempDir dir;
  DistributedTrainer first(config, data, make_simulated_group(2));
  first.initialize();
  Trainer::RunHooks hooks;
  hooks.stop = [&] { return first.iteration() >= 70; };
  EXPECT_FALSE(first.run(hooks));
  EXPECT_EQ(first.iteration(), 70);
  first.save_checkpoint(dir.file("c.bin"));
  DistributedTrainer resumed(config, data, make_simulated_group(2));
  resumed.resume(dir.file("c.bin"));
  EXPECT_EQ(resumed.iteration(), 70);
  ASSERT_TRUE(resumed.run({}));
  DistributedTrainer whole(config, data, make_simulated_group(2));
  whole.initialize();
  ASSERT_TRUE(whole.run({}));
  EXPECT_TRUE(test::identical_models(resumed.model(), whole.model()));
  EXPECT_EQ(resumed.segments().size(), 2u);

  // Other ranks, another mode, or the plain trainer: refused with the difference named.
  DistributedTrainer three(data_parallel(test::tiny_config(130), 3), data, make_simulated_group(3));
  try {
    three.resume(dir.file("c.bin"));
    FAIL() << "resumed with 3 ranks";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("distributed/ranks: 2 -> 3"), std::string::npos) << e.what();
  }
  Trainer plain(test::tiny_config(130), data);
  try {
    plain.resume(dir.file("c.bin"));
    FAIL() << "resumed by the plain trainer";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("distributed/ranks: 2 -> (absent)"), std::string::npos) << e.what();
  }
  TrainConfig gaussians = config;
  gaussians.distributed.mode = Parallelism::Gaussians;
  DistributedTrainer partitioned(gaussians, data, make_simulated_group(2));
  EXPECT_THROW(partitioned.resume(dir.file("c.bin")), InvalidArgument);
}

TEST(DataParallel, ConfigurationAndGroupMustAgree) {
  const training::TrainingDataset data = test::load_scene(32);
  EXPECT_THROW(DistributedTrainer(data_parallel(test::tiny_config(10), 2), data, make_simulated_group(3)),
               InvalidArgument);
  TrainConfig cuda = data_parallel(test::tiny_config(10), 2);
  cuda.device = Device::Cuda;
  EXPECT_THROW(DistributedTrainer(cuda, data, make_simulated_group(2)), InvalidArgument);
  TrainConfig bad = data_parallel(test::tiny_config(10), 0);
  EXPECT_THROW(DistributedTrainer(bad, data, make_simulated_group(1)), InvalidArgument);
  DistributedTrainer t(data_parallel(test::tiny_config(10), 2), data, make_simulated_group(2));
  t.initialize();
  const std::vector<training::TrainingView> other;
  EXPECT_THROW(t.evaluate(other), InvalidArgument);
  // Scaling for N views per iteration: learning rates x sqrt(N), Adam betas to the power N, recorded.
  TrainConfig scaled = data_parallel(test::tiny_config(10), 4);
  scaled.distributed.scale_for_views = true;
  DistributedTrainer s(scaled, data, make_simulated_group(4));
  EXPECT_FLOAT_EQ(s.config().lr.opacity, 0.05f * 2.0f);
  EXPECT_FLOAT_EQ(s.config().lr.position, 1.6e-4f * 2.0f);
  EXPECT_FLOAT_EQ(s.config().adam.beta1, 0.9f * 0.9f * 0.9f * 0.9f);
  EXPECT_NE(training::config_to_json(scaled).find("\"scale_for_views\": true"), std::string::npos);
  scaled.distributed.mode = Parallelism::Gaussians;
  EXPECT_FALSE(scaled.problems().empty());
}
