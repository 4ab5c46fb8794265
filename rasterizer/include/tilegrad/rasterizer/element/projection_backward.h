// Pull-backs of the per-Gaussian gradients (w.r.t. mean2d, conic, opacity, depth, colour) to the parameters,
// computed with forward-mode duals through the very functions the forward uses (projection.h, color.h).
#pragma once
#include <cstdint>

#include "tilegrad/ad/dual.h"
#include "tilegrad/ad/functions.h"
#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/projection.h"

namespace tilegrad::raster {

// Layout of the per-Gaussian (and per-instance) 2D gradient record.
enum Grad2d : int {
  kGradU = 0, kGradV = 1,                 // mean2d
  kGradConicA = 2, kGradConicB = 3, kGradConicC = 4,
  kGradOpacity = 5,
  kGradColor = 6,                         // 6, 7, 8
  kGradDepth = 9,
  kGradAbsU = 10, kGradAbsV = 11,         // sum over pixels of |dL/dmean2d| (statistic, not a gradient)
  kGrad2dWidth = 12,
};

template <class T>
struct ParamGrad {
  Vec3<T> mean, log_scale;
  Vec4<T> quat;
  T opacity_logit;
};

// g: the kGrad2dWidth record of one Gaussian. Inputs are the raw parameters.
template <class T>
TG_HD ParamGrad<T> project_gaussian_vjp(const Vec3<T>& mean, const Vec3<T>& log_scale, const Vec4<T>& quat,
                                        T opacity_logit, const ProjectionCamera& cam, float blur, bool antialiased,
                                        const T* g) {
  using D = Dual<T, 11>;
  Vec3<D> m, s;
  Vec4<D> q;
  TG_UNROLL for (int i = 0; i < 3; ++i) {
    m[i] = D::variable(mean[i], i);
    s[i] = D::variable(log_scale[i], 3 + i);
  }
  TG_UNROLL for (int i = 0; i < 4; ++i) q[i] = D::variable(quat[i], 6 + i);
  const D logit = D::variable(opacity_logit, 10);
  const Projected<D> pr = project_gaussian(m, s, q, logit, cam, blur, antialiased);
  T out[11];
  TG_UNROLL for (int j = 0; j < 11; ++j) out[j] = T(0);
  if (pr.valid) {
    const D* outputs[7] = {&pr.mean2d[0], &pr.mean2d[1], &pr.conic[0], &pr.conic[1], &pr.conic[2], &pr.opacity,
                           &pr.depth};
    const T weights[7] = {g[kGradU], g[kGradV], g[kGradConicA], g[kGradConicB], g[kGradConicC], g[kGradOpacity],
                          g[kGradDepth]};
    TG_UNROLL for (int o = 0; o < 7; ++o)
      TG_UNROLL for (int j = 0; j < 11; ++j) out[j] += weights[o] * outputs[o]->d[j];
  }
  ParamGrad<T> r;
  TG_UNROLL for (int i = 0; i < 3; ++i) {
    r.mean[i] = out[i];
    r.log_scale[i] = out[3 + i];
  }
  TG_UNROLL for (int i = 0; i < 4; ++i) r.quat[i] = out[6 + i];
  r.opacity_logit = out[10];
  return r;
}

// Colour backward: adds d L / d mean (through the view direction) to mean_grad and writes dL/dcoeffs for the
// active bands (coeff_grad laid out like coeffs, [K_stored, 3]; inactive bands are left untouched).
template <class T, class C>
TG_HD void sh_color_vjp(int active_degree, const C* coeffs, const Vec3<T>& mean, const Vec3<float>& camera_position,
                        std::uint8_t clamped_mask, const T* g_color, Vec3<T>& mean_grad, T* coeff_grad) {
  T g[3];
  TG_UNROLL for (int c = 0; c < 3; ++c) g[c] = (clamped_mask >> c) & 1u ? T(0) : g_color[c];
  // Basis values for the coefficient gradient, and their derivatives w.r.t. the mean for the direction term.
  using D = Dual<T, 3>;
  Vec3<D> md;
  TG_UNROLL for (int i = 0; i < 3; ++i) md[i] = D::variable(mean[i], i);
  D y[kShMaxCoefficients];
  sh_basis(active_degree, view_direction(md, camera_position), y);
  const int n = (active_degree + 1) * (active_degree + 1);
  for (int k = 0; k < n; ++k) {
    T dot_k = T(0);
    TG_UNROLL for (int c = 0; c < 3; ++c) {
      coeff_grad[k * 3 + c] = g[c] * y[k].v;
      dot_k += g[c] * T(coeffs[k * 3 + c]);
    }
    TG_UNROLL for (int i = 0; i < 3; ++i) mean_grad[i] += dot_k * y[k].d[i];
  }
}

}  // namespace tilegrad::raster
