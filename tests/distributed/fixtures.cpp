// Helpers of fixtures.h.
#include "fixtures.h"

#include <fstream>
#include <iterator>
#include <map>
#include <memory>

#include "tilegrad/training/default_scene.h"

namespace tilegrad::test {

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

training::TrainingDataset load_scene(int size, Device device) {
  training::DatasetOptions o;
  o.path = scene_dataset(size);
  o.device = device;
  return training::load_dataset(o);
}

training::TrainConfig small_config(int iterations, Device device) {
  training::TrainConfig c;
  c.iterations = iterations;
  c.device = device;
  c.init_points = 600;
  c.sh_degree = 1;
  c.sh_degree_every = 100;
  c.densify.from = 40;
  c.densify.until = iterations;
  c.densify.every = 40;
  c.densify.grad_threshold = 4e-4f;
  c.densify.opacity_reset_every = 120;
  c.log_every = 20;
  return c;
}

std::vector<std::vector<float>> model_arrays(const training::GaussianModel& m) {
  std::vector<std::vector<float>> out;
  for (const raster::Gaussians* g : {&m.params, &m.adam_m, &m.adam_v})
    for (const Buffer<float>* b : {&g->means, &g->log_scales, &g->quats, &g->opacity_logits, &g->sh})
      out.push_back(b->to_vector());
  for (const Buffer<float>* b : {&m.grad_accum, &m.view_count, &m.max_radius}) out.push_back(b->to_vector());
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

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace tilegrad::test
