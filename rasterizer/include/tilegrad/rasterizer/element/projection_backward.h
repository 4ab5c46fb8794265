// Pull-backs of the per-Gaussian gradients (w.r.t. mean2d, conic, opacity, depth, colour) to the parameters,
// computed with forward-mode duals through the very functions the forward uses (projection.h, color.h).
#pragma once
#include <cstdint>

#include "tilegrad/ad/dual.h"
#include "tilegrad/ad/functions.h"
#include "tilegrad/rasterizer/element/color.h"
#include "tilegrad/rasterizer/element/projection.h"
#include "tilegrad/rasterizer/element/record.h"

namespace tilegrad::raster {

template <class T>
struct ParamGrad {
  Vec3<T> mean, log_scale;
  Vec4<T> quat;
  T opacity_logit;
};

// g: the gradient record (record.h) of one Gaussian, kGrad2dWidth values. Two chained pull-backs keep the dual
// numbers short: the screen-space part over (mean, the 6 entries of Sigma, logit) with 10 partials, then the
// covariance over (log_scale, quat) with 7.
template <class T>
TG_HD ParamGrad<T> project_gaussian_vjp(const Vec3<T>& mean, const Vec3<T>& log_scale, const Vec4<T>& quat,
                                        T opacity_logit, const ProjectionCamera& cam, float blur, bool antialiased,
                                        const T* g) {
  ParamGrad<T> r;
  const Mat3<T> sigma = covariance_3d(log_scale, quat);
  T sigma_adjoint[6];  // d L / d (xx, xy, xz, yy, yz, zz)
  {
    using D = Dual<T, 10>;
    Vec3<D> m;
    TG_UNROLL for (int i = 0; i < 3; ++i) m[i] = D::variable(mean[i], i);
    const D s00 = D::variable(sigma(0, 0), 3), s01 = D::variable(sigma(0, 1), 4), s02 = D::variable(sigma(0, 2), 5);
    const D s11 = D::variable(sigma(1, 1), 6), s12 = D::variable(sigma(1, 2), 7), s22 = D::variable(sigma(2, 2), 8);
    const Mat3<D> sd{{{s00, s01, s02}, {s01, s11, s12}, {s02, s12, s22}}};
    const Projected<D> pr = project_covariance(m, sd, D::variable(opacity_logit, 9), cam, blur, antialiased);
    T out[10];
    TG_UNROLL for (int j = 0; j < 10; ++j) {
      out[j] = pr.valid ? g[kGradU] * pr.mean2d[0].d[j] + g[kGradV] * pr.mean2d[1].d[j] +
                              g[kGradConicA] * pr.conic[0].d[j] + g[kGradConicB] * pr.conic[1].d[j] +
                              g[kGradConicC] * pr.conic[2].d[j] + g[kGradOpacity] * pr.opacity.d[j] +
                              g[kGradDepth] * pr.depth.d[j]
                        : T(0);
    }
    TG_UNROLL for (int i = 0; i < 3; ++i) r.mean[i] = out[i];
    TG_UNROLL for (int i = 0; i < 6; ++i) sigma_adjoint[i] = out[3 + i];
    r.opacity_logit = out[9];
  }
  {
    using D = Dual<T, 7>;
    Vec3<D> s;
    Vec4<D> q;
    TG_UNROLL for (int i = 0; i < 3; ++i) s[i] = D::variable(log_scale[i], i);
    TG_UNROLL for (int i = 0; i < 4; ++i) q[i] = D::variable(quat[i], 3 + i);
    const Mat3<D> cov = covariance_3d(s, q);
    TG_UNROLL for (int j = 0; j < 7; ++j) {
      const T v = sigma_adjoint[0] * cov(0, 0).d[j] + sigma_adjoint[1] * cov(0, 1).d[j] +
                  sigma_adjoint[2] * cov(0, 2).d[j] + sigma_adjoint[3] * cov(1, 1).d[j] +
                  sigma_adjoint[4] * cov(1, 2).d[j] + sigma_adjoint[5] * cov(2, 2).d[j];
      if (j < 3) r.log_scale[j] = v; else r.quat[j - 3] = v;
    }
  }
  return r;
}

// Colour backward: adds d L / d mean (through the view direction) to mean_grad and writes dL/dcoeffs for the
// active bands (coeff_grad laid out like coeffs, [K_stored, 3]; inactive bands are left untouched).
template <class T, class C>
TG_HD void sh_color_vjp(int active_degree, const C* coeffs, const Vec3<T>& mean, const Vec3<float>& camera_position,
                        std::uint8_t clamped_mask, const T* d_color, Vec3<T>& mean_grad, T* coeff_grad) {
  T g[3];
  TG_UNROLL for (int c = 0; c < 3; ++c) g[c] = (clamped_mask >> c) & 1u ? T(0) : d_color[c];
  // Basis values for the coefficient gradient, and their derivatives w.r.t. the mean for the direction term.
  using D = Dual<T, 3>;
  Vec3<D> md;
  TG_UNROLL for (int i = 0; i < 3; ++i) md[i] = D::variable(mean[i], i);
  D y[kShMaxCoefficients] = {};
  sh_basis(active_degree, view_direction(md, camera_position), y);
  const int n = (active_degree + 1) * (active_degree + 1);
  // Unrolled over all 16 coefficients with a guard: constant indices keep y[] in registers.
  TG_UNROLL for (int k = 0; k < kShMaxCoefficients; ++k) {
    if (k >= n) break;
    T dot_k = T(0);
    TG_UNROLL for (int c = 0; c < 3; ++c) {
      coeff_grad[k * 3 + c] = g[c] * y[k].v;
      dot_k += g[c] * T(coeffs[k * 3 + c]);
    }
    TG_UNROLL for (int i = 0; i < 3; ++i) mean_grad[i] += dot_k * y[k].d[i];
  }
}

}  // namespace tilegrad::raster
