// Helpers of fixtures.h.
#include "fixtures.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "tilegrad/io/image.h"
#include "tilegrad/training/default_scene.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::test {

namespace fs = std::filesystem;

std::uint8_t pattern_byte(int x, int y, int c) { return std::uint8_t((37 * x + 91 * y + 53 * c + 17) % 256); }

void write_pattern_png(const std::string& path, int width, int height, int channels) {
  io::Image img(width, height, channels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) img.at(x, y, c) = float(pattern_byte(x, y, c)) / 255.0f;
  fs::create_directories(fs::path(path).parent_path());
  io::write_png(path, img);
}

void write_transforms_dataset(const std::string& folder, int frames, int width, int height, bool split) {
  nlohmann::json train = nlohmann::json::array(), test = nlohmann::json::array();
  for (int i = 0; i < frames; ++i) {
    const float a = 6.2831853f * float(i) / float(frames);
    const float eye[3] = {4.0f * std::cos(a), 4.0f * std::sin(a), 1.0f};
    // Camera-to-world, OpenGL axes, looking at the origin with +z up.
    float f[3] = {-eye[0], -eye[1], -eye[2]};
    const float fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (float& v : f) v /= fl;
    float r[3] = {f[1], -f[0], 0.0f};
    const float rl = std::sqrt(r[0] * r[0] + r[1] * r[1]);
    r[0] /= rl, r[1] /= rl;
    const float u[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
    nlohmann::json m = nlohmann::json::array();
    for (int k = 0; k < 3; ++k) m.push_back({r[k], u[k], -f[k], eye[k]});
    m.push_back({0, 0, 0, 1});
    const std::string name = "images/frame_" + std::to_string(i);
    write_pattern_png(folder + "/" + name + ".png", width, height, 4);
    (split && i == frames - 1 ? test : train).push_back({{"file_path", "./" + name}, {"transform_matrix", m}});
  }
  auto write = [&](const std::string& file, const nlohmann::json& list) {
    std::ofstream out(folder + "/" + file);
    out << nlohmann::json({{"camera_angle_x", 0.8}, {"frames", list}}).dump(1);
  };
  if (split) {
    write("transforms_train.json", train);
    write("transforms_test.json", test);
  } else {
    write("transforms.json", train);
  }
}

raster::Camera centered_camera(int width, int height, float focal) {
  raster::Camera c;
  c.width = width;
  c.height = height;
  c.fx = c.fy = focal;
  c.cx = 0.5f * float(width);
  c.cy = 0.5f * float(height);
  return c;
}

training::TrainConfig tiny_config(int iterations, Device device) {
  training::TrainConfig c;
  c.iterations = iterations;
  c.device = device;
  c.init_points = 600;
  c.sh_degree = 1;
  c.sh_degree_every = 100;
  c.densify.from = 40;
  c.densify.until = iterations;
  c.densify.every = 40;
  c.densify.grad_threshold = 4e-4f;  // tiny images have large NDC gradients: fewer, larger Gaussians suffice
  c.densify.opacity_reset_every = 120;
  c.log_every = 20;
  return c;
}

training::TrainConfig with_ranks(training::TrainConfig c, int ranks, training::Parallelism mode) {
  c.distributed.ranks = ranks;
  c.distributed.mode = mode;
  return c;
}

const std::string& scene_dataset(int size) {
  static TempDir folder;
  static std::map<int, std::string> paths;
  auto it = paths.find(size);
  if (it != paths.end()) return it->second;
  training::SceneViewOptions o;
  o.width = o.height = size;
  o.train_views = 12;
  o.test_views = 4;
  o.camera_distance = 3.0f;
  const std::string p = folder.path() + "/scene" + std::to_string(size);
  training::write_synthetic_dataset(p, training::make_default_scene(), o);
  return paths.emplace(size, p).first->second;
}

const std::string& tiny_scene_dataset() { return scene_dataset(32); }

training::TrainingDataset load_scene(int size, Device device) {
  training::DatasetOptions o;
  o.path = scene_dataset(size);
  o.device = device;
  return training::load_dataset(o);
}

training::GaussianModel random_model(std::size_t n, std::uint64_t seed) {
  training::GaussianModel m = training::GaussianModel::from_parameters(raster::Gaussians::allocate(n, 1, Device::Cpu));
  std::uint64_t counter = 0;
  for (Buffer<float>* b : m.arrays())
    for (std::size_t i = 0; i < b->size(); ++i)
      b->data()[i] = float(training::mix64(seed ^ training::mix64(++counter)) >> 40) / float(1 << 24) - 0.5f;
  return m;
}

training::GaussianModel model_rows(const training::GaussianModel& model, std::size_t first, std::size_t count) {
  training::GaussianModel out = model.to(Device::Cpu);
  for (Buffer<float>* b : out.arrays()) {
    const std::size_t w = b->size() / model.count();
    *b = Buffer<float>::from(b->data() + first * w, count * w, Device::Cpu);
  }
  return out;
}

std::vector<std::vector<float>> model_arrays(const training::GaussianModel& m) {
  std::vector<std::vector<float>> out;
  for (const Buffer<float>* b : m.arrays()) out.push_back(b->to_vector());
  return out;
}

::testing::AssertionResult identical_models(const training::GaussianModel& a, const training::GaussianModel& b) {
  if (a.count() != b.count())
    return ::testing::AssertionFailure() << "counts differ: " << a.count() << " vs " << b.count();
  if (a.adam_step != b.adam_step)
    return ::testing::AssertionFailure() << "Adam steps differ: " << a.adam_step << " vs " << b.adam_step;
  const auto x = model_arrays(a), y = model_arrays(b);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!bitwise_equal(x[i], y[i])) {
      std::size_t k = 0;
      while (k < x[i].size() && std::memcmp(&x[i][k], &y[i][k], sizeof(float)) == 0) ++k;
      return ::testing::AssertionFailure() << "array " << i << " differs first at element " << k << ": " << x[i][k]
                                           << " vs " << y[i][k];
    }
  return ::testing::AssertionSuccess();
}


}  // namespace tilegrad::test
