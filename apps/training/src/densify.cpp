// Densification on either device: the plan per Gaussian (device), its prefix sum (host: it runs every few
// hundred steps and the new size must reach the host anyway), and the scatter into new buffers (device).
#include "tilegrad/training/densify.h"

#include <array>
#include <cmath>
#include <vector>

#include "density_args.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#if TILEGRAD_WITH_CUDA
#include "cuda_backend.h"
#endif

namespace tilegrad::training {

namespace {

template <class F>
void for_each_gaussian(std::size_t n, F&& body) {
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(dynamic, 1024) if (count > 4096)
  for (std::ptrdiff_t i = 0; i < count; ++i) body(std::size_t(i));
}

std::array<Buffer<float>*, detail::kFieldCount> fields(raster::Gaussians& g) {
  return {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh};
}

raster::Gaussians allocate_like(const raster::Gaussians& g, std::size_t count) {
  return raster::Gaussians::allocate(count, g.sh_degree, g.device());
}

}  // namespace

void accumulate_density_stats(GaussianModel& model, const raster::Camera& camera,
                              const raster::RasterSettings& settings, View<const float> mean2d_grad) {
  const std::size_t n = model.count();
  check_view(mean2d_grad, n * 2, model.device(), "mean2d gradient [N, 2]");
  const raster::Gaussians& p = model.params;
  detail::StatsArgs a{n,
                      p.means.data(),
                      p.log_scales.data(),
                      p.quats.data(),
                      p.opacity_logits.data(),
                      mean2d_grad.data(),
                      raster::make_projection_camera(camera),
                      settings.blur,
                      settings.thresholds.extent_sigmas,
                      settings.thresholds.min_alpha,
                      settings.antialiased,
                      model.grad_accum.data(),
                      model.view_count.data(),
                      model.max_radius.data()};
  if (model.device() == Device::Cpu) {
    for_each_gaussian(n, [&](std::size_t i) { detail::stats_element(a, i); });
    return;
  }
#if TILEGRAD_WITH_CUDA
  cuda_backend::accumulate_density_stats(a);
#endif
}

DensifyCounts densify_and_prune(GaussianModel& model, const DensifyRule& rule, std::uint64_t seed,
                                std::uint64_t iteration, std::uint64_t first_index) {
  const std::size_t n = model.count();
  const Device device = model.device();
  raster::Gaussians& p = model.params;
  Buffer<std::uint8_t> plan(n, device);
  const detail::PlanArgs pa{n,
                            p.log_scales.data(),
                            p.opacity_logits.data(),
                            model.grad_accum.data(),
                            model.view_count.data(),
                            model.max_radius.data(),
                            rule,
                            plan.data()};
  if (device == Device::Cpu) {
    for_each_gaussian(n, [&](std::size_t i) { detail::plan_element(pa, i); });
  } else {
#if TILEGRAD_WITH_CUDA
    cuda_backend::plan_densification(pa);
#endif
  }
  const std::vector<std::uint8_t> host_plan = plan.to_vector();
  std::vector<std::uint32_t> offsets(n + 1, 0);
  DensifyCounts counts;
  counts.before = n;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t k = host_plan[i];
    const int outputs = plan_outputs(k);
    offsets[i + 1] = offsets[i] + std::uint32_t(outputs);
    if (k & kPlanSplit) {
      ++counts.split;
      counts.pruned += 1 + std::size_t(2 - outputs);  // the original always goes
    } else {
      const bool cloned = k & kPlanSecond;
      counts.cloned += cloned;
      counts.pruned += !(k & kPlanFirst);
    }
  }
  counts.after = offsets[n];
  TG_CHECK_ARG(counts.after < (std::size_t(1) << 32), "densification would exceed 2^32 Gaussians");

  GaussianModel next;
  next.params = allocate_like(p, counts.after);
  next.params.version = p.version + 1;
  next.adam_m = allocate_like(model.adam_m, counts.after);
  next.adam_v = allocate_like(model.adam_v, counts.after);
  next.adam_step = model.adam_step;
  const Buffer<std::uint32_t> device_offsets = Buffer<std::uint32_t>::from(offsets, device);
  detail::ScatterArgs sa{};
  sa.n = n;
  sa.plan = plan.data();
  sa.offsets = device_offsets.data();
  sa.seed = seed;
  sa.iteration = iteration;
  sa.first_index = first_index;
  const auto src_p = fields(p), src_m = fields(model.adam_m), src_v = fields(model.adam_v);
  const auto dst_p = fields(next.params), dst_m = fields(next.adam_m), dst_v = fields(next.adam_v);
  for (int f = 0; f < detail::kFieldCount; ++f) {
    sa.width[f] = n > 0 ? int(src_p[f]->size() / n) : 0;
    sa.params.src[f] = src_p[f]->data();
    sa.params.dst[f] = dst_p[f]->data();
    sa.m.src[f] = src_m[f]->data();
    sa.m.dst[f] = dst_m[f]->data();
    sa.v.src[f] = src_v[f]->data();
    sa.v.dst[f] = dst_v[f]->data();
  }
  if (device == Device::Cpu) {
    for_each_gaussian(n, [&](std::size_t i) { detail::scatter_element(sa, i); });
  } else {
#if TILEGRAD_WITH_CUDA
    cuda_backend::scatter_densified(sa);
#endif
  }
  next.zero_statistics();
  model = std::move(next);
  return counts;
}

void reset_opacity(GaussianModel& model, float max_opacity) {
  TG_CHECK_ARG(max_opacity > 0 && max_opacity < 1, "reset_opacity: max_opacity must be in (0, 1)");
  const float max_logit = std::log(max_opacity / (1.0f - max_opacity));
  float* logits = model.params.opacity_logits.data();
  float* m = model.adam_m.opacity_logits.data();
  float* v = model.adam_v.opacity_logits.data();
  const std::size_t n = model.count();
  if (model.device() == Device::Cpu) {
    for_each_gaussian(n, [&](std::size_t i) { detail::reset_opacity_element(logits, m, v, max_logit, i); });
  } else {
#if TILEGRAD_WITH_CUDA
    cuda_backend::reset_opacity(logits, m, v, n, max_logit);
#endif
  }
  model.params.version += 1;
}

}  // namespace tilegrad::training
