// Real spherical harmonics (degree 0..3) in the 3DGS convention: colour = sum_k coeff_k Y_k(dir) + 0.5,
// clamped at 0. Written over the scalar type for values (float/double) and directional derivatives (Dual).
#pragma once
#include "tilegrad/ad/functions.h"
#include "tilegrad/core/vec.h"

namespace tilegrad::raster {

constexpr int kShMaxCoefficients = 16;

// Y_k(d) for k < (degree + 1)^2; d must be unit length. The constants are the normalisations of the real
// SH basis functions (with the sign convention used by 3DGS).
template <class S>
TG_HD void sh_basis(int degree, const Vec3<S>& d, S* y) {
  using T = scalar_of_t<S>;
  y[0] = S(T(0.28209479177387814));
  if (degree < 1) return;
  const S x = d[0], yy = d[1], z = d[2];
  const T c1 = T(0.4886025119029199);
  y[1] = -c1 * yy;
  y[2] = c1 * z;
  y[3] = -c1 * x;
  if (degree < 2) return;
  const S xx = x * x, y2 = yy * yy, zz = z * z, xy = x * yy, yz = yy * z, xz = x * z;
  y[4] = T(1.0925484305920792) * xy;
  y[5] = T(-1.0925484305920792) * yz;
  y[6] = T(0.31539156525252005) * (T(2) * zz - xx - y2);
  y[7] = T(-1.0925484305920792) * xz;
  y[8] = T(0.5462742152960396) * (xx - y2);
  if (degree < 3) return;
  y[9] = T(-0.5900435899266435) * yy * (T(3) * xx - y2);
  y[10] = T(2.890611442640554) * xy * z;
  y[11] = T(-0.4570457994644658) * yy * (T(4) * zz - xx - y2);
  y[12] = T(0.3731763325901154) * z * (T(2) * zz - T(3) * xx - T(3) * y2);
  y[13] = T(-0.4570457994644658) * x * (T(4) * zz - xx - y2);
  y[14] = T(1.445305721320277) * z * (xx - y2);
  y[15] = T(-0.5900435899266435) * x * (xx - T(3) * y2);
}

// Colour before clamping: sum_k coeffs[k][c] Y_k + 0.5, with coeffs laid out [k][3].
template <class S, class C>
TG_HD Vec3<S> sh_color_unclamped(int degree, const C* coeffs, const Vec3<S>& dir) {
  S y[kShMaxCoefficients] = {};  // entries past the degree are never read; zeroed to keep compilers quiet
  sh_basis(degree, dir, y);
  const int n = (degree + 1) * (degree + 1);
  Vec3<S> rgb = Vec3<S>::filled(S(scalar_of_t<S>(0.5)));
  TG_UNROLL for (int k = 0; k < kShMaxCoefficients; ++k) {  // unrolled: y[] stays in registers
    if (k >= n) break;
    TG_UNROLL for (int c = 0; c < 3; ++c) rgb[c] = rgb[c] + y[k] * S(coeffs[k * 3 + c]);
  }
  return rgb;
}

}  // namespace tilegrad::raster
