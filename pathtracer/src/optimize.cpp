// Adam on the L2 image loss (parameters on the host: a few per sphere), and the recovery metric.
#include "tilegrad/pathtracer/optimize.h"

#include <algorithm>
#include <cmath>

#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/loss.h"

namespace tilegrad::pathtracer {
namespace {

void clamp_to_valid(std::vector<float>& p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    const int k = static_cast<int>(i % kSphereParams);
    if (k == kRadius) p[i] = std::max(p[i], 1e-3f);
    else if (k >= kAlbedoR && k <= kAlbedoB) p[i] = std::clamp(p[i], 0.0f, 1.0f);
    else if (k >= kEmissionR) p[i] = std::max(p[i], 0.0f);
  }
}

}  // namespace

void ParamMask::enable(std::size_t sphere, ParamGroup group) {
  TG_CHECK_ARG((sphere + 1) * kSphereParams <= active.size(), "parameter mask: sphere ", sphere, " out of range");
  const int first = group == ParamGroup::Center ? kCenterX
                  : group == ParamGroup::Radius ? kRadius
                  : group == ParamGroup::Albedo ? kAlbedoR
                                                : kEmissionR;
  const int count = group == ParamGroup::Radius ? 1 : 3;
  for (int k = 0; k < count; ++k) active[sphere * kSphereParams + first + k] = 1;
}

std::size_t ParamMask::count() const { return static_cast<std::size_t>(std::count(active.begin(), active.end(), 1)); }

ParamGroup parse_param_group(const std::string& name) {
  if (name == "center") return ParamGroup::Center;
  if (name == "radius") return ParamGroup::Radius;
  if (name == "albedo") return ParamGroup::Albedo;
  if (name == "emission") return ParamGroup::Emission;
  throw InvalidArgument("unknown parameter group '" + name + "' (expected center, radius, albedo or emission)");
}

Scene optimize(Renderer& renderer, const OptimizeProblem& pb, const std::function<void(const IterationInfo&)>& cb) {
  const Scene& s0 = pb.initial;
  const std::size_t pixels = static_cast<std::size_t>(s0.camera.width) * s0.camera.height * 3;
  TG_CHECK_ARG(pb.target.size() == pixels, "optimize: the target has ", pb.target.size(), " values, expected ", pixels);
  TG_CHECK_ARG(pb.mask.active.size() == s0.num_params(), "optimize: the mask has ", pb.mask.active.size(),
               " entries, expected ", s0.num_params());
  TG_CHECK_ARG(pb.adam.iterations >= 0, "optimize: iterations must be >= 0");
  const Device d = renderer.device();
  Buffer<float> target = Buffer<float>::from(pb.target, d);
  Buffer<float> image(pixels, d), d_image(pixels, d), d_params(s0.num_params(), d);
  Scene scene = s0;
  std::vector<float> p = pack_params(scene), m(p.size(), 0.0f), v(p.size(), 0.0f);
  const AdamOptions& a = pb.adam;
  for (int it = 0; it < a.iterations; ++it) {
    renderer.set_scene(scene);
    renderer.render(pb.render, image.view());
    const double loss = l2_loss(image.cview(), target.cview(), d_image.view());
    IterationInfo info;
    info.iteration = it;
    info.loss = loss;
    info.scene = &scene;
    info.image = image.cview();
    info.stats = renderer.backward(pb.render, pb.gradient, d_image.cview(), d_params.view());
    if (cb) cb(info);
    const std::vector<float> g = d_params.to_vector();
    const float progress = a.iterations > 1 ? static_cast<float>(it) / static_cast<float>(a.iterations - 1) : 0.0f;
    const float lr = a.lr * std::pow(a.lr_final / a.lr, progress);
    const float c1 = 1.0f - std::pow(a.beta1, static_cast<float>(it + 1));
    const float c2 = 1.0f - std::pow(a.beta2, static_cast<float>(it + 1));
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!pb.mask.active[i]) continue;
      m[i] = a.beta1 * m[i] + (1 - a.beta1) * g[i];
      v[i] = a.beta2 * v[i] + (1 - a.beta2) * g[i] * g[i];
      p[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + a.eps);
    }
    clamp_to_valid(p);
    unpack_params(scene, p);
  }
  return scene;
}

double recovery_error(const Scene& truth, const Scene& result, const ParamMask& mask) {
  TG_CHECK_ARG(truth.spheres.size() == result.spheres.size(), "recovery_error: different numbers of spheres");
  double worst = 0.0;
  for (std::size_t i = 0; i < truth.spheres.size(); ++i) {
    const Sphere &t = truth.spheres[i], &r = result.spheres[i];
    if (mask.active[i * kSphereParams + kCenterX])
      worst = std::max(worst, double(norm(r.center - t.center)) / t.radius);
    if (mask.active[i * kSphereParams + kRadius]) worst = std::max(worst, std::fabs(double(r.radius - t.radius)) / t.radius);
    bool emission = false;
    for (int k = kEmissionR; k <= kEmissionB; ++k) emission = emission || mask.active[i * kSphereParams + k];
    if (emission) {
      const double off = norm(r.emission - t.emission), scale = norm(t.emission);
      worst = std::max(worst, scale > 0.0 ? off / scale : off);
    }
  }
  return worst;
}

}  // namespace tilegrad::pathtracer
