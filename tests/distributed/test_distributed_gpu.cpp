// NCCL ranks on GPUs. On one GPU (what every GPU machine can run): the NCCL collectives and the exact combination
// on a group of one; data-parallel and Gaussian-partitioned training on one GPU equal the plain GPU trainer bit
// for bit; crop cameras and loss windows on the GPU. On several GPUs (skipped with fewer than two): data-parallel
// replicas agree and runs repeat bit for bit; partitioned first-step gradients match the plain trainer's.
// TILEGRAD_TEST_SCALE=small (compute-sanitizer) shortens the runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fixtures.h"
#include "tilegrad/distributed/distributed_trainer.h"
#include "tilegrad/distributed/exact_combine.h"
#include "tilegrad/distributed/partition.h"
#include "tilegrad/distributed/rank_threads.h"
#include "tilegrad/distributed/replicas.h"
#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/loss.h"
#include "tilegrad/training/trainer.h"

using namespace tilegrad;
using namespace tilegrad::distributed;
using training::Parallelism;
using training::TrainConfig;
using training::Trainer;

#define TG_REQUIRE_NCCL()                                                              \
  do {                                                                                 \
    TG_REQUIRE_CUDA();                                                                 \
    if (!nccl_compiled()) GTEST_SKIP() << "this build has no NCCL (see apps/distributed)"; \
  } while (0)

namespace {

// Densification at 20 and 40 even in the short runs.
TrainConfig gpu_config() {
  TrainConfig c = test::tiny_config(int(std::max<std::size_t>(test::scaled(160), 45)), Device::Cuda);
  c.densify.from = 15;
  c.densify.every = 20;
  return c;
}

TrainConfig over_ranks(TrainConfig c, int ranks, Parallelism mode) {
  c.distributed.ranks = ranks;
  c.distributed.mode = mode;
  return c;
}

std::vector<int> first_gpus(int n) {
  std::vector<int> d(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) d[std::size_t(i)] = i;
  return d;
}

double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double scale = 0, worst = 0;
  for (float x : b) scale = std::max(scale, double(std::fabs(x)));
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
  return scale > 0 ? worst / scale : worst;
}

}  // namespace

TEST(DistributedCuda, NcclGroupOfOneGpu) {
  TG_REQUIRE_NCCL();
  CommGroup group = make_nccl_group({0});
  RankThreads threads(group);
  threads.run([&](int r) {
    Communicator& c = threads.comm(r);
    EXPECT_EQ(c.device(), Device::Cuda);
    EXPECT_EQ(c.gpu(), 0);
    Buffer<std::int64_t> ints = Buffer<std::int64_t>::from(std::vector<std::int64_t>{5, -(std::int64_t(1) << 50)},
                                                           Device::Cuda);
    c.all_reduce(ints.data(), 2, DataType::I64, ReduceOp::Sum);
    EXPECT_EQ(ints.to_vector(), (std::vector<std::int64_t>{5, -(std::int64_t(1) << 50)}));
    const std::vector<float> x = test::random_floats(1000, 3);
    Buffer<float> values = Buffer<float>::from(x, Device::Cuda);
    Workspace ws(Device::Cuda);
    exact_all_reduce(c, {{values.view()}}, ws);
    EXPECT_TRUE(test::bitwise_equal(values.to_vector(), x));  // one rank: the identity
    Buffer<float> gathered(1000, Device::Cuda), copy(1000, Device::Cuda);
    c.all_gather(values.data(), gathered.data(), 1000 * sizeof(float));
    c.all_to_all_v(values.data(), {4000}, {0}, copy.data(), {4000}, {0});
    c.synchronize();
    EXPECT_TRUE(test::bitwise_equal(gathered.to_vector(), x));
    EXPECT_TRUE(test::bitwise_equal(copy.to_vector(), x));
    EXPECT_GT(c.traffic().bytes, 0u);
  });
  EXPECT_THROW(make_nccl_group({0, 0}), InvalidArgument);
  EXPECT_THROW(make_nccl_group({visible_gpus()}), InvalidArgument);
}

TEST(DistributedCuda, DataParallelOnOneGpuIsThePlainGpuTrainerBitForBit) {
  TG_REQUIRE_NCCL();
  const TrainConfig config = gpu_config();
  const training::TrainingDataset gpu_data = test::load_scene(32, Device::Cuda);
  Trainer plain(config, gpu_data);
  plain.initialize();
  ASSERT_TRUE(plain.run({}));
  const training::TrainingDataset host_data = test::load_scene(32);
  DistributedTrainer one(over_ranks(config, 1, Parallelism::Data), host_data, make_nccl_group({0}));
  one.initialize();
  ASSERT_TRUE(one.run({}));
  EXPECT_NE(plain.model().count(), config.init_points);
  EXPECT_TRUE(test::identical_models(plain.model(), one.model()));
}

TEST(DistributedCuda, GaussianParallelOnOneGpuIsThePlainGpuTrainerBitForBit) {
  TG_REQUIRE_NCCL();
  const TrainConfig config = gpu_config();
  const training::TrainingDataset gpu_data = test::load_scene(64, Device::Cuda);
  Trainer plain(config, gpu_data);
  plain.initialize(spatially_ordered(training::initial_gaussians(config, gpu_data)));
  ASSERT_TRUE(plain.run({}));
  const training::TrainingDataset host_data = test::load_scene(64);
  DistributedTrainer one(over_ranks(config, 1, Parallelism::Gaussians), host_data, make_nccl_group({0}));
  one.initialize();
  ASSERT_TRUE(one.run({}));
  EXPECT_NE(plain.model().count(), config.init_points);
  EXPECT_TRUE(test::identical_models(plain.model(), one.model()));
  const training::Evaluation a = plain.evaluate(gpu_data.test), b = one.evaluate(host_data.test);
  EXPECT_EQ(a.psnr, b.psnr);
}

TEST(DistributedCuda, CropCamerasAndLossWindowsOnTheGpu) {
  TG_REQUIRE_CUDA();
  const training::TrainingDataset data = test::load_scene(64, Device::Cuda);
  const raster::Gaussians g = training::initial_gaussians(test::tiny_config(1), data).to(Device::Cuda);
  const raster::Camera& full = data.test[0].camera;
  raster::Rasterizer rasterizer(Device::Cuda);
  const std::vector<float> image = rasterizer.forward(g.view(), full).image.to_vector();
  const raster::Camera crop = raster::crop_camera(full, 16, 32, 48, 32);
  const std::vector<float> part = rasterizer.forward(g.view(), crop).image.to_vector();
  double worst = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 48; ++x)
      for (int c = 0; c < 3; ++c)
        worst = std::max(worst, std::fabs(double(part[(std::size_t(y) * 48 + x) * 3 + c]) -
                                          image[(std::size_t(y + 32) * 64 + (x + 16)) * 3 + c]));
  EXPECT_LT(worst, 2e-5);
  // A loss window on the GPU against the CPU, without and with a valid-pixel mask (a disc, as a full-frame
  // undistortion leaves).
  std::vector<std::uint8_t> disc(64 * 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) disc[std::size_t(y) * 64 + x] = (x - 32) * (x - 32) + (y - 32) * (y - 32) < 900;
  const std::size_t disc_pixels = std::size_t(std::count(disc.begin(), disc.end(), std::uint8_t(1)));
  auto window_loss = [&](Device d, bool masked) {
    const Buffer<float> img = Buffer<float>::from(image, d);
    const Buffer<std::uint8_t> target = data.test[0].image.to(d);
    const Buffer<std::uint8_t> valid = Buffer<std::uint8_t>::from(disc, d);
    training::ImageLoss loss(d);
    training::ImagePair p;
    p.width = p.height = 64;
    p.image = img.view();
    p.target = target.view();
    if (masked) p.valid = valid.view();
    p.window = {16, 16, 48, 64, masked ? disc_pixels : std::size_t(64 * 64)};
    Buffer<float> grad(image.size(), d), values(4, d);
    loss.backward(p, grad.view(), values.view());
    return std::make_pair(grad.to_vector(), values.to_vector());
  };
  for (const bool masked : {false, true}) {
    const auto cpu = window_loss(Device::Cpu, masked), gpu = window_loss(Device::Cuda, masked);
    // The gradient within 1e-4 of its largest entry: the GPU sums the SSIM windows in another order.
    EXPECT_LT(relative_difference(gpu.first, cpu.first), 1e-4) << (masked ? "masked" : "unmasked");
    EXPECT_LT(relative_difference(gpu.second, cpu.second), 1e-5) << (masked ? "masked" : "unmasked");
  }
}

// The replicas' hash of a model on the GPU (grid-stride sums, atomics) is the CPU's hash of the same model, and a
// bit flipped on the GPU changes it. 300,001 Gaussians: many blocks, odd-sized arrays.
TEST(DistributedCuda, ModelHashOnTheGpuIsTheCpusHash) {
  const training::GaussianModel cpu = test::random_model(300001);
  training::GaussianModel gpu = cpu.to(Device::Cuda);
  EXPECT_EQ(model_hash(gpu), model_hash(cpu));
  for (std::size_t a = 0; a < training::GaussianModel::kArrays; ++a) {
    std::vector<float> values = cpu.arrays()[a]->to_vector();
    values.back() = std::nextafter(values.back(), 1.0f);  // one bit of the last float
    training::GaussianModel other = cpu.to(Device::Cuda);
    other.arrays()[a]->assign(View<const float>(values.data(), values.size(), Device::Cpu), Device::Cuda);
    EXPECT_NE(model_hash(other), model_hash(gpu)) << "array " << a;
  }
}

TEST(DistributedCuda, SeveralGpus) {
  TG_REQUIRE_NCCL();
  const int gpus = std::min(visible_gpus(), 4);
  if (gpus < 2) GTEST_SKIP() << "needs at least two GPUs, " << visible_gpus() << " visible";
  const training::TrainingDataset host_data = test::load_scene(64);
  const TrainConfig config = gpu_config();
  // Data parallel: replicas agree and a second run repeats the first bit for bit.
  DistributedTrainer a(over_ranks(config, gpus, Parallelism::Data), host_data, make_nccl_group(first_gpus(gpus)));
  a.initialize();
  ASSERT_TRUE(a.run({}));
  const std::vector<std::uint64_t> hashes = a.rank_model_hashes();
  for (std::uint64_t h : hashes) EXPECT_EQ(h, hashes[0]);
  DistributedTrainer b(over_ranks(config, gpus, Parallelism::Data), host_data, make_nccl_group(first_gpus(gpus)));
  b.initialize();
  ASSERT_TRUE(b.run({}));
  EXPECT_TRUE(test::identical_models(a.model(), b.model()));
  // Gaussian-partitioned: the first step's gradients (Adam's first moments) match one GPU's.
  TrainConfig one_step = config;
  one_step.iterations = 1;
  const training::TrainingDataset gpu_data = test::load_scene(64, Device::Cuda);
  Trainer plain(one_step, gpu_data);
  plain.initialize(spatially_ordered(training::initial_gaussians(one_step, gpu_data)));
  plain.run({});
  DistributedTrainer p(over_ranks(one_step, gpus, Parallelism::Gaussians), host_data,
                       make_nccl_group(first_gpus(gpus)));
  p.initialize();
  p.run({});
  const auto x = test::model_arrays(p.model()), y = test::model_arrays(plain.model());
  for (std::size_t k = 5; k < 10; ++k) EXPECT_LT(relative_difference(x[k], y[k]), 1e-4) << "array " << k;
  const DistributedReport report = p.report();
  for (const RankReport& r : report.per_rank) EXPECT_GT(r.peak_gpu_bytes, 0u);
}
