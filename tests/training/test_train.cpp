// End-to-end training on the CPU: the test PSNR of the tiny default scene rises, runs are bit-identical for a
// seed, a resumed run equals an uninterrupted one, checkpoints round-trip, reject other settings or data and
// detect corruption, times add up across resumes, periodic checkpoints, configuration problems, metrics.json.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "test_support.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/checkpoint.h"
#include "tilegrad/training/fingerprint.h"
#include "tilegrad/training/outputs.h"
#include "tilegrad/training/trainer.h"

using namespace tilegrad;
using namespace tilegrad::training;

TEST(Train, TestPsnrRisesOnTheTinyScene) {
  const TrainingDataset data = test::load_scene(32);
  Trainer trainer(test::tiny_config(300), data);
  trainer.initialize();
  const double before = trainer.evaluate(data.test).psnr;
  int reports = 0;
  Trainer::RunHooks hooks;
  hooks.report = [&](const Progress& p) {
    ++reports;
    EXPECT_TRUE(std::isfinite(p.loss));
    EXPECT_GT(p.gaussians, 0u);
  };
  EXPECT_TRUE(trainer.run(hooks));
  EXPECT_EQ(reports, 300 / 20);
  const Evaluation after = trainer.evaluate(data.test);
  // Measured 8.2 dB (600 random grey points) -> 18.4 dB after 300 steps of 32 x 32 images; demand 7 dB of it.
  std::printf("test PSNR %.2f dB -> %.2f dB, SSIM %.4f\n", before, after.psnr, after.ssim);
  EXPECT_GT(after.psnr, before + 7.0) << "before " << before << " dB, after " << after.psnr << " dB";
  EXPECT_GT(after.ssim, 0.6);
  EXPECT_EQ(after.views.size(), data.test.size());
  const Evaluation sampled = trainer.evaluate(data.test, {}, 2);  // views 0 and 2 of 4
  ASSERT_EQ(sampled.views.size(), 2u);
  EXPECT_EQ(sampled.views[1].name, data.test[2].name);
  EXPECT_EQ(sampled.views[1].psnr, after.views[2].psnr);
  const StageTimes t = trainer.stage_times();
  EXPECT_GT(t.render, 0.0);
  EXPECT_GT(t.backward, 0.0);
}

TEST(Train, ReportsCountTheIterationsThatDensifiedOrResetOpacities) {
  // Each report counts the iterations since the one before whose step densified or reset the opacities, as
  // apply_step returned them, and the progress line carries the count.
  const TrainingDataset data = test::load_scene(32);
  Trainer trainer(test::tiny_config(130), data);  // densifies at 80 and 120, resets opacity at 120
  trainer.initialize();
  int since_report = 0, total = 0, reports = 0;
  Trainer::RunHooks hooks;
  hooks.step = [&] {
    trainer.begin_view(std::uint64_t(trainer.iteration()) + 1);
    trainer.compute_view_gradients();
    const Trainer::StepEvents e = trainer.apply_step();
    if (e.densified || e.opacity_reset) ++since_report;
  };
  hooks.report = [&](const Progress& p) {
    ++reports;
    EXPECT_EQ(p.densify_events, since_report) << "report at iteration " << p.iteration;
    const nlohmann::json line = nlohmann::json::parse(progress_json_line(p));
    EXPECT_EQ(line.at("densify_events").get<int>(), p.densify_events);
    total += p.densify_events;
    since_report = 0;
  };
  EXPECT_TRUE(trainer.run(hooks));
  EXPECT_EQ(reports, 7);  // every 20 iterations, and at 130
  EXPECT_EQ(total, 2);    // 80 and 120
}

TEST(Train, SameSeedGivesBitIdenticalPly) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  std::string files[2];
  GaussianModel models[2];
  for (int run = 0; run < 2; ++run) {
    Trainer trainer(test::tiny_config(130), data);  // densifies at 80 and 120, resets opacity at 120
    trainer.initialize();
    trainer.run({});
    files[run] = dir.file("run" + std::to_string(run) + ".ply");
    io::write_gaussians_ply(files[run], trainer.model().params);
    models[run] = trainer.model().to(Device::Cpu);
  }
  EXPECT_TRUE(test::identical_models(models[0], models[1]));
  EXPECT_EQ(test::file_bytes(files[0]), test::file_bytes(files[1]));
  // A different seed changes the result (the seed reaches the initial points and the view order).
  TrainConfig other = test::tiny_config(130);
  other.seed = 1;
  Trainer trainer(other, data);
  trainer.initialize();
  trainer.run({});
  EXPECT_NE(trainer.model().params.means.to_vector(), models[0].params.means.to_vector());
}

TEST(Train, ResumedRunEqualsUninterruptedRun) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  Trainer straight(test::tiny_config(170), data);
  straight.initialize();
  straight.run({});

  Trainer first(test::tiny_config(170), data);
  first.initialize();
  Trainer::RunHooks hooks;
  hooks.stop = [&] { return first.iteration() == 90; };  // as Ctrl-C would, between two densifications
  EXPECT_FALSE(first.run(hooks));
  EXPECT_EQ(first.iteration(), 90);
  const std::string ckpt = dir.file("checkpoint.bin");
  first.save_checkpoint(ckpt);

  Trainer second(test::tiny_config(170), data);
  second.resume(ckpt);
  EXPECT_EQ(second.iteration(), 90);
  EXPECT_TRUE(second.run({}));
  EXPECT_TRUE(test::identical_models(straight.model(), second.model()));
}

TEST(Train, CheckpointRoundTripsAndRejectsOtherSettings) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  Trainer trainer(test::tiny_config(50), data);
  trainer.initialize();
  trainer.run({});
  const std::string ckpt = dir.file("c.bin");
  trainer.save_checkpoint(ckpt);
  const Checkpoint c = load_checkpoint(ckpt);
  EXPECT_EQ(c.iteration, 50);
  EXPECT_TRUE(test::identical_models(c.model, trainer.model().to(Device::Cpu)));

  TrainConfig changed = test::tiny_config(50);
  changed.lambda_dssim = 0.3f;
  Trainer other(changed, data);
  try {
    other.resume(ckpt);
    ADD_FAILURE() << "resume with other settings must fail";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("lambda_dssim"), std::string::npos) << e.what();
  }

  const std::string bytes = test::file_bytes(ckpt);
  std::ofstream(dir.file("short.bin"), std::ios::binary) << bytes.substr(0, bytes.size() - 9);
  EXPECT_THROW(load_checkpoint(dir.file("short.bin")), IoError);
  std::ofstream(dir.file("other.bin"), std::ios::binary) << "PLY or something else entirely";
  EXPECT_THROW(load_checkpoint(dir.file("other.bin")), IoError);
  EXPECT_THROW(load_checkpoint(dir.file("missing.bin")), IoError);
}

// The densification statistics count a view for a Gaussian whose splat reaches a pixel (default), or, like the
// original 3DGS, whenever its 3-sigma footprint touches the image, however faint it is.
TEST(Train, DensifyVisibilityRuleDecidesWhichViewsCount) {
  const TrainingDataset data = test::load_scene(32);
  raster::Gaussians g = raster::Gaussians::allocate(2, 1, Device::Cpu);
  const float means[6] = {0, 0, 0, 0.1f, 0, 0};
  for (int i = 0; i < 6; ++i) g.means.data()[i] = means[i], g.log_scales.data()[i] = std::log(0.3f);
  for (int i = 0; i < 8; ++i) g.quats.data()[i] = i % 4 == 0 ? 1.0f : 0.0f;
  g.opacity_logits.data()[0] = 2.0f;                            // opaque
  g.opacity_logits.data()[1] = std::log(0.002f / (1 - 0.002f));  // fainter than 1/255 everywhere
  for (std::size_t i = 0; i < g.sh.size(); ++i) g.sh.data()[i] = 0.1f;
  for (const bool opacity_aware : {true, false}) {
    TrainConfig c = test::tiny_config(1);
    c.densify.until = 100;  // statistics are gathered while densifying
    c.densify.opacity_aware_visibility = opacity_aware;
    Trainer trainer(c, data);
    trainer.initialize(g.to(Device::Cpu));
    ASSERT_TRUE(trainer.step());
    const std::vector<float> views = trainer.model().view_count.to_vector();
    EXPECT_EQ(views[0], 1.0f);
    EXPECT_EQ(views[1], opacity_aware ? 0.0f : 1.0f);
  }
}

TEST(Train, AFlippedBitInACheckpointIsDetected) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  Trainer trainer(test::tiny_config(20), data);
  trainer.initialize();
  trainer.run({});
  const std::string ckpt = dir.file("c.bin");
  trainer.save_checkpoint(ckpt);
  std::string bytes = test::file_bytes(ckpt);
  for (const std::size_t at : {bytes.size() / 2, bytes.size() - 20, std::size_t(200)}) {
    std::string flipped = bytes;
    flipped[at] = char(flipped[at] ^ 0x10);
    std::ofstream(dir.file("flipped.bin"), std::ios::binary) << flipped;
    try {
      load_checkpoint(dir.file("flipped.bin"));
      ADD_FAILURE() << "a flipped bit at byte " << at << " was loaded";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("flipped.bin"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(load_checkpoint(ckpt));
}

TEST(Train, TimesAreCumulativeAcrossResumes) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  Trainer first(test::tiny_config(60), data);
  first.initialize();
  first.run({});
  const std::string ckpt = dir.file("c.bin");
  first.save_checkpoint(ckpt);
  const StageTimes t = first.stage_times();
  ASSERT_GT(first.training_seconds(), 0.0);

  // A finished run resumed: nothing to train, and the run's figures are the first segment's.
  Trainer finished(test::tiny_config(60), data);
  finished.resume(ckpt);
  EXPECT_TRUE(finished.run({}));
  EXPECT_EQ(finished.training_seconds(), first.training_seconds());
  EXPECT_EQ(finished.stage_times().render, t.render);
  EXPECT_EQ(finished.stage_times().backward, t.backward);
  EXPECT_EQ(finished.checkpoint_stats().count, 1);  // the one written above, with its time
  EXPECT_GT(finished.checkpoint_stats().seconds, 0.0);
  ASSERT_EQ(finished.segments().size(), 2u);
  EXPECT_EQ(finished.segments()[0].last_iteration, 60);
  EXPECT_EQ(finished.segments()[1].first_iteration, 60);

  // Resumed into a longer run: the time grows from the first segment's.
  TrainConfig longer_config = test::tiny_config(90);
  longer_config.densify.until = 60;  // as the first segment's schedule
  Trainer longer(longer_config, data);
  longer.resume(ckpt);
  EXPECT_TRUE(longer.run({}));
  EXPECT_GT(longer.training_seconds(), first.training_seconds());
  ASSERT_EQ(longer.segments().size(), 2u);
  EXPECT_EQ(longer.segments()[1].last_iteration, 90);
  EXPECT_NEAR(longer.segments()[0].seconds + longer.segments()[1].seconds, longer.training_seconds(), 1e-9);
}

TEST(Train, CheckpointsArePeriodicByDefaultByIterationsAndByWallTime) {
  const TrainConfig defaults;
  EXPECT_EQ(defaults.checkpoint_every, 5000);
  EXPECT_EQ(defaults.checkpoint_minutes, 10.0f);
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  Trainer::RunHooks hooks;
  hooks.checkpoint_path = dir.file("c.bin");
  TrainConfig by_iterations = test::tiny_config(60);
  by_iterations.checkpoint_every = 25;
  by_iterations.checkpoint_minutes = 0;
  Trainer a(by_iterations, data);
  a.initialize();
  a.run(hooks);
  EXPECT_EQ(a.checkpoint_stats().count, 2);  // at 25 and 50; the end's is the caller's
  EXPECT_EQ(load_checkpoint(hooks.checkpoint_path).iteration, 50);

  TrainConfig by_time = test::tiny_config(30);
  by_time.checkpoint_every = 100000;
  by_time.checkpoint_minutes = 1e-7f;  // due after every iteration
  Trainer b(by_time, data);
  b.initialize();
  b.run(hooks);
  EXPECT_EQ(b.checkpoint_stats().count, 29);
  EXPECT_EQ(load_checkpoint(hooks.checkpoint_path).iteration, 29);

  by_time.checkpoint_every = 0;  // off: no periodic checkpoint, whatever the time
  Trainer c(by_time, data);
  c.initialize();
  c.run(hooks);
  EXPECT_EQ(c.checkpoint_stats().count, 0);
}

// Periodic checkpoints are written from a host copy on a background thread: the file holds the model of the
// iteration it was taken at (the same bytes a synchronous write gives), and a write that fails is reported by
// run(), not lost.
TEST(Train, BackgroundCheckpointsHoldTheirIterationAndReportFailures) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  TrainConfig config = test::tiny_config(20);
  config.checkpoint_every = 10;
  config.checkpoint_minutes = 0;
  config.lr.position_steps = 20;  // the same schedule for the 10-iteration run below
  Trainer::RunHooks hooks;
  hooks.checkpoint_path = dir.file("periodic.bin");
  Trainer a(config, data);
  a.initialize();
  config.iterations = 10;
  Trainer b(config, data);
  b.initialize();
  a.run(hooks);  // 20 iterations: the periodic checkpoint is taken at 10
  b.run({});
  b.save_checkpoint(dir.file("sync.bin"));
  const Checkpoint periodic = load_checkpoint(hooks.checkpoint_path), sync = load_checkpoint(dir.file("sync.bin"));
  EXPECT_EQ(periodic.iteration, 10);
  EXPECT_EQ(periodic.model.params.means.to_vector(), sync.model.params.means.to_vector());
  EXPECT_EQ(periodic.model.adam_v.sh.to_vector(), sync.model.adam_v.sh.to_vector());

  Trainer::RunHooks broken;
  broken.checkpoint_path = dir.file("missing_folder/c.bin");
  TrainConfig periodic_config = test::tiny_config(20);
  periodic_config.checkpoint_every = 10;
  periodic_config.checkpoint_minutes = 0;
  Trainer d(periodic_config, data);
  d.initialize();
  EXPECT_THROW(d.run(broken), IoError);
}

TEST(Train, ConfigurationProblemsAreAllListedReadably) {
  TrainConfig c = test::tiny_config(10);
  EXPECT_TRUE(c.problems().empty());
  c.adam.eps = 0;  // once trained to the end and wrote a NaN checkpoint
  c.lr.opacity = std::nanf("");
  c.iterations = 0;
  c.init_opacity = 1;
  const std::vector<std::string> p = c.problems();
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], "iterations must be >= 1, got 0");
  EXPECT_EQ(p[1], "lr.opacity must be positive and finite, got nan");
  EXPECT_EQ(p[2], "adam.eps must be positive and finite, got 0");
  EXPECT_EQ(p[3], "init_opacity must be in (0, 1), got 1");
  try {
    c.validate();
    ADD_FAILURE() << "validate must throw";
  } catch (const InvalidArgument& e) {
    for (const std::string& line : p) EXPECT_NE(std::string(e.what()).find(line), std::string::npos) << e.what();
  }
}

TEST(Train, FingerprintDifferencesNameTheViewsAndFields) {
  TrainingDataset data = test::load_scene(32);
  const std::string saved = dataset_fingerprint(data);
  EXPECT_TRUE(fingerprint_differences(saved, saved).empty());
  data.train[1].camera.fx *= 2;
  const std::string moved_name = data.test[0].name;
  data.test.erase(data.test.begin());
  const std::vector<std::string> d = fingerprint_differences(saved, dataset_fingerprint(data));
  ASSERT_EQ(d.size(), 3u);
  EXPECT_NE(d[0].find("train view '" + data.train[1].name + "': fx"), std::string::npos) << d[0];
  EXPECT_EQ(d[1], "test views: 4 -> 3");
  EXPECT_EQ(d[2], "test view '" + moved_name + "': missing from this dataset");
  for (auto& v : data.train) v.camera.cx += 1;
  // 12 train views moved (one with fx too), the test count and the missing test view: 14 lines, 5 shown.
  EXPECT_EQ(fingerprint_differences(saved, dataset_fingerprint(data), 5).back(), "... and 9 more");
}

TEST(Train, MetricsJsonNamesItsSplitAndViewCount) {
  const TrainingDataset data = test::load_scene(32);
  test::TempDir dir;
  Trainer trainer(test::tiny_config(10), data);
  trainer.initialize();
  trainer.run({});
  Evaluation e = trainer.evaluate(data.test);
  EXPECT_THROW(write_metrics_json(dir.file("m.json"), e, nullptr), InvalidArgument);  // which split?
  e.split = "test";
  RunSummary s;
  s.training_seconds = trainer.training_seconds();
  s.checkpoints = trainer.checkpoint_stats();
  s.segments = trainer.segments();
  write_metrics_json(dir.file("m.json"), e, &s);
  const nlohmann::json j = nlohmann::json::parse(test::file_bytes(dir.file("m.json")));
  EXPECT_EQ(j.at("split"), "test");
  EXPECT_EQ(j.at("views"), data.test.size());
  EXPECT_EQ(j.at("segments").size(), 1u);
  EXPECT_EQ(j.at("checkpoints").at("count"), 0);
}
