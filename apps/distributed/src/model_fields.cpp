// Field lists of models, parameters and gradients (model_fields.h).
#include "model_fields.h"

#include <algorithm>

namespace tilegrad::distributed::detail {

namespace {

void add_field(Fields& f, const Buffer<float>& b, int width) {
  f.data[f.count] = const_cast<float*>(b.data());
  f.width[f.count] = width;
  f.record += width;
  ++f.count;
}

}  // namespace

Fields param_fields(const raster::Gaussians& g) {
  Fields f{};
  add_field(f, g.means, 3);
  add_field(f, g.log_scales, 3);
  add_field(f, g.quats, 4);
  add_field(f, g.opacity_logits, 1);
  add_field(f, g.sh, 3 * raster::sh_coefficients(g.sh_degree));
  return f;
}

Fields gradient_fields(const raster::Gradients& g, int sh_degree) {
  Fields f{};
  add_field(f, g.means, 3);
  add_field(f, g.log_scales, 3);
  add_field(f, g.quats, 4);
  add_field(f, g.opacity_logits, 1);
  add_field(f, g.sh, 3 * raster::sh_coefficients(sh_degree));
  add_field(f, g.mean2d, 2);
  return f;
}

Fields model_fields(const training::GaussianModel& m) {
  Fields f{};
  for (const raster::Gaussians* g : {&m.params, &m.adam_m, &m.adam_v}) {
    const Fields p = param_fields(*g);
    for (int k = 0; k < p.count; ++k) {
      f.data[f.count] = p.data[k];
      f.width[f.count] = p.width[k];
      ++f.count;
    }
    f.record += p.record;
  }
  for (const Buffer<float>* b : {&m.grad_accum, &m.view_count, &m.max_radius}) add_field(f, *b, 1);
  return f;
}

raster::Gradients zero_gradients(std::size_t n, int sh_degree, Device d) {
  raster::Gradients g;
  g.means = Buffer<float>::zeros(3 * n, d);
  g.log_scales = Buffer<float>::zeros(3 * n, d);
  g.quats = Buffer<float>::zeros(4 * n, d);
  g.opacity_logits = Buffer<float>::zeros(n, d);
  g.sh = Buffer<float>::zeros(3 * std::size_t(raster::sh_coefficients(sh_degree)) * n, d);
  g.mean2d = Buffer<float>::zeros(2 * n, d);
  return g;
}

training::GaussianModel empty_model(std::size_t n, int sh_degree, Device d) {
  training::GaussianModel m;
  m.params = raster::Gaussians::allocate(n, sh_degree, d);
  m.adam_m = raster::Gaussians::allocate(n, sh_degree, d);
  m.adam_v = raster::Gaussians::allocate(n, sh_degree, d);
  m.grad_accum = Buffer<float>(n, d);
  m.view_count = Buffer<float>(n, d);
  m.max_radius = Buffer<float>(n, d);
  return m;
}

training::GaussianModel slice(const training::GaussianModel& m, std::size_t first, std::size_t count) {
  training::GaussianModel out = empty_model(count, m.params.sh_degree, Device::Cpu);
  out.adam_step = m.adam_step;
  const Fields src = model_fields(m), dst = model_fields(out);
  for (int k = 0; k < src.count; ++k)
    std::copy_n(src.data[k] + first * std::size_t(src.width[k]), count * std::size_t(src.width[k]), dst.data[k]);
  out.params.version = m.params.version;
  return out;
}

}  // namespace tilegrad::distributed::detail
