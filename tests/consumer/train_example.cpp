// A minimal training loop against the installed tilegrad: load a .ply (or make a small scene), render a target,
// perturb the scene, then recover it with L2 loss, backward and plain SGD. Loss and update run on the host to
// keep the example short; `tilegrad train` does the same with fused GPU kernels.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <tilegrad/io/ply_gaussians.h>
#include <tilegrad/rasterizer/rasterizer.h>

using namespace tilegrad;

// 64 Gaussians on a ring in front of the camera, SH degree 0.
raster::Gaussians make_scene() {
  const std::size_t n = 64;
  auto g = raster::Gaussians::allocate(n, 0, Device::Cpu);
  for (std::size_t i = 0; i < n; ++i) {
    const float a = 6.2831853f * float(i) / float(n);
    const float mean[3] = {0.8f * std::cos(a), 0.8f * std::sin(a), 0.3f * std::sin(3 * a)};
    const float sh[3] = {std::cos(a), std::sin(a), 0.5f};
    for (int c = 0; c < 3; ++c) {
      g.means.data()[3 * i + c] = mean[c];
      g.log_scales.data()[3 * i + c] = std::log(0.12f);
      g.sh.data()[3 * i + c] = sh[c];
    }
    const float quat[4] = {1, 0, 0, 0};
    for (int c = 0; c < 4; ++c) g.quats.data()[4 * i + c] = quat[c];
    g.opacity_logits.data()[i] = 1.0f;
  }
  return g;
}

int main(int argc, char** argv) {
  const Device device = default_device();
  raster::Gaussians truth = argc > 1 ? io::read_gaussians_ply(argv[1]) : make_scene();
  if (argc <= 1) {  // round trip through the standard file format, as a user's scene would arrive
    io::write_gaussians_ply("example_scene.ply", truth);
    truth = io::read_gaussians_ply("example_scene.ply");
  }
  const raster::Camera camera = raster::Camera::look_at({{0, 0, -3}}, {{0, 0, 0}}, {{0, 1, 0}}, 0.9f, 96, 96);
  raster::Rasterizer rasterizer(device);

  // Target image from the true scene.
  const raster::Gaussians truth_on_device = truth.to(device);
  const std::vector<float> target = rasterizer.forward(truth_on_device.view(), camera).image.to_vector();

  // Start from a perturbed copy: shifted means.
  std::vector<float> means = truth.means.to_vector();
  std::mt19937 rng(1);
  std::normal_distribution<float> noise(0.0f, 0.03f);
  for (float& m : means) m += noise(rng);
  raster::Gaussians scene = truth.to(device);
  scene.means = Buffer<float>::from(means, device);

  const float learning_rate = 1e-3f;  // plain SGD on a loss summed over pixels: small steps
  double first_loss = 0, loss = 0;
  for (int it = 0; it < 60; ++it) {
    const raster::ForwardOutput out = rasterizer.forward(scene.view(), camera);
    const std::vector<float> image = out.image.to_vector();
    std::vector<float> d_image(image.size());
    loss = 0;
    for (std::size_t i = 0; i < image.size(); ++i) {
      const float d = image[i] - target[i];
      loss += double(d) * d;
      d_image[i] = 2.0f * d;
    }
    if (it == 0) first_loss = loss;
    const raster::Gradients grads = rasterizer.backward(out, scene.view(), Buffer<float>::from(d_image, device).view());
    const std::vector<float> g = grads.means.to_vector();
    for (std::size_t i = 0; i < means.size(); ++i) means[i] -= learning_rate * g[i];
    scene.means.copy_from(Buffer<float>::from(means, Device::Cpu).view());
    scene.version += 1;  // the parameters changed: contexts of earlier forwards are no longer valid
    if (it % 20 == 0) std::printf("iteration %2d  loss %.6f\n", it, loss);
  }
  std::printf("loss %.6f -> %.6f on %s\n", first_loss, loss, to_string(device));
  if (!(loss < 0.5 * first_loss)) {
    std::fprintf(stderr, "train_example: the loss did not drop by half\n");
    return 1;
  }
  return 0;
}
