// GaussianModel construction and copies.
#include "tilegrad/training/model.h"

#include "tilegrad/core/error.h"

namespace tilegrad::training {

namespace {
raster::Gaussians zeros_like(const raster::Gaussians& p) {
  raster::Gaussians z;
  z.sh_degree = p.sh_degree;
  const Device d = p.device();
  z.means = Buffer<float>::zeros(p.means.size(), d);
  z.log_scales = Buffer<float>::zeros(p.log_scales.size(), d);
  z.quats = Buffer<float>::zeros(p.quats.size(), d);
  z.opacity_logits = Buffer<float>::zeros(p.opacity_logits.size(), d);
  z.sh = Buffer<float>::zeros(p.sh.size(), d);
  return z;
}

// The arrays of a model or of a const model, in GaussianModel::arrays()'s order.
template <class Model>
auto arrays_of(Model& m) {
  using BufferPtr = decltype(&m.grad_accum);
  std::array<BufferPtr, GaussianModel::kArrays> out{};
  std::size_t k = 0;
  for (auto* g : {&m.params, &m.adam_m, &m.adam_v})
    for (BufferPtr b : {&g->means, &g->log_scales, &g->quats, &g->opacity_logits, &g->sh}) out[k++] = b;
  for (BufferPtr b : {&m.grad_accum, &m.view_count, &m.max_radius}) out[k++] = b;
  return out;
}
}  // namespace

GaussianModel GaussianModel::from_parameters(raster::Gaussians params) {
  TG_CHECK_ARG(params.colors.empty(), "training needs SH colours, not precomputed colours");
  raster::validate(params.view());
  GaussianModel m;
  m.adam_m = zeros_like(params);
  m.adam_v = zeros_like(params);
  m.params = std::move(params);
  m.zero_statistics();
  return m;
}

GaussianModel GaussianModel::to(Device device) const {
  GaussianModel m;
  copy_into(m, device);
  return m;
}

void GaussianModel::copy_into(GaussianModel& dst, Device device) const {
  params.copy_into(dst.params, device);
  adam_m.copy_into(dst.adam_m, device);
  adam_v.copy_into(dst.adam_v, device);
  dst.adam_step = adam_step;
  dst.grad_accum.assign(grad_accum.view(), device);
  dst.view_count.assign(view_count.view(), device);
  dst.max_radius.assign(max_radius.view(), device);
}

std::array<Buffer<float>*, GaussianModel::kArrays> GaussianModel::arrays() { return arrays_of(*this); }
std::array<const Buffer<float>*, GaussianModel::kArrays> GaussianModel::arrays() const { return arrays_of(*this); }

void GaussianModel::zero_statistics() {
  const std::size_t n = count();
  const Device d = device();
  grad_accum = Buffer<float>::zeros(n, d);
  view_count = Buffer<float>::zeros(n, d);
  max_radius = Buffer<float>::zeros(n, d);
}

}  // namespace tilegrad::training
