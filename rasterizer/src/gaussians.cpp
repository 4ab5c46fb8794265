// Allocation, copies and validation of Gaussian parameters.
#include "tilegrad/rasterizer/gaussians.h"

#include "tilegrad/core/error.h"

namespace tilegrad::raster {

void validate(const GaussiansView& g) {
  TG_CHECK_ARG(g.sh_degree >= 0 && g.sh_degree <= kMaxShDegree, "gaussians: sh_degree must be 0..3, got ",
               g.sh_degree);
  const std::size_t n = g.count;
  check_view(g.means, n * 3, g.device, "gaussians.means [N, 3]");
  check_view(g.log_scales, n * 3, g.device, "gaussians.log_scales [N, 3]");
  check_view(g.quats, n * 4, g.device, "gaussians.quats [N, 4]");
  check_view(g.opacity_logits, n, g.device, "gaussians.opacity_logits [N]");
  if (g.colors.empty() || n == 0) {
    check_view(g.sh, n * sh_coefficients(g.sh_degree) * 3, g.device, "gaussians.sh [N, (degree + 1)^2, 3]");
  } else {
    check_view(g.colors, n * 3, g.device, "gaussians.colors [N, 3]");
  }
}

Gaussians Gaussians::allocate(std::size_t count, int sh_degree, Device device) {
  TG_CHECK_ARG(sh_degree >= 0 && sh_degree <= kMaxShDegree, "sh_degree must be 0..3, got ", sh_degree);
  Gaussians g;
  g.sh_degree = sh_degree;
  g.means = Buffer<float>(count * 3, device);
  g.log_scales = Buffer<float>(count * 3, device);
  g.quats = Buffer<float>(count * 4, device);
  g.opacity_logits = Buffer<float>(count, device);
  g.sh = Buffer<float>(count * sh_coefficients(sh_degree) * 3, device);
  return g;
}

Gaussians Gaussians::to(Device device) const {
  Gaussians g;
  copy_into(g, device);
  return g;
}

void Gaussians::copy_into(Gaussians& dst, Device device) const {
  dst.sh_degree = sh_degree;
  dst.version = version;
  dst.means.assign(means.view(), device);
  dst.log_scales.assign(log_scales.view(), device);
  dst.quats.assign(quats.view(), device);
  dst.opacity_logits.assign(opacity_logits.view(), device);
  dst.sh.assign(sh.view(), device);
  dst.colors.assign(colors.view(), device);
}

GaussiansView Gaussians::view() const {
  GaussiansView v;
  v.count = count();
  v.sh_degree = sh_degree;
  v.device = device();
  v.means = means.view();
  v.log_scales = log_scales.view();
  v.quats = quats.view();
  v.opacity_logits = opacity_logits.view();
  v.sh = sh.view();
  v.colors = colors.view();
  v.version = version;
  return v;
}

}  // namespace tilegrad::raster
