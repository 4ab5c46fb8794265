// Per-pixel image resampling between cameras (host and device): a target pinhole pixel is split into n x n
// subsamples; each is a ray through the target camera, distorted by the source lens (element/lens.h) onto the
// source image and read there (pixel centres at i + 0.5, edges clamped) with bicubic interpolation (Keys' cubic
// convolution, a = -0.5: 4 x 4 taps, exact on quadratics) or bilinear interpolation (2 x 2 taps, what COLMAP's
// undistorter uses; it blurs by up to a two-pixel box where the grids are half a pixel apart; the host picks it
// for n > 1, where the mean of the samples is the low-pass filter). The pixel is
// the mean of its subsamples; it is valid when every subsample lands inside the source image and the lens's
// one-to-one domain and, with a source mask (always read bilinearly), the mask's mean over the subsamples is at
// least one half. Invalid pixels are written as zero. Undistortion (n = 1), resizing (n = ceil of the size
// ratio) and both at once are this one function.
#pragma once
#include <cstdint>

#include "tilegrad/core/math.h"
#include "tilegrad/rasterizer/element/lens.h"

namespace tilegrad::training {

// Trivially copyable: passed to kernels by value.
struct ResampleArgs {
  raster::LensCoefficients<float> lens;     // of the source camera
  float src_fx, src_fy, src_cx, src_cy;     // source intrinsics (pixels)
  int src_width, src_height;
  float dst_fx, dst_fy, dst_cx, dst_cy;     // target pinhole intrinsics
  int dst_width, dst_height;
  int subsamples;                           // per axis, >= 1
  bool bicubic;                             // else bilinear
  const std::uint8_t* source;               // [src_height, src_width, 4] premultiplied RGBA8
  const std::uint8_t* source_mask;          // [src_height, src_width], 0..255 (null: none)
  std::uint8_t* target;                     // [dst_height, dst_width, 4]
  std::uint8_t* valid;                      // [dst_height, dst_width], 1 valid, 0 not
};

namespace resample_detail {

// Bilinear weights and clamped indices along one axis at continuous coordinate q (pixel corners at integers).
struct Taps {
  int i0, i1;
  float w1;
};
TG_HD TG_INLINE Taps taps(float q, int n) {
  const float f = q - 0.5f;
  const float fl = floorf(f);
  int i0 = int(fl);
  const float w1 = f - fl;
  int i1 = i0 + 1;
  i0 = i0 < 0 ? 0 : (i0 > n - 1 ? n - 1 : i0);
  i1 = i1 < 0 ? 0 : (i1 > n - 1 ? n - 1 : i1);
  return {i0, i1, w1};
}

// Keys' cubic convolution weights (a = -0.5) of the taps at offsets -1, 0, 1, 2 for a fraction t in [0, 1).
TG_HD TG_INLINE void cubic_weights(float t, float w[4]) {
  const float t2 = t * t, t3 = t2 * t;
  w[0] = -0.5f * t3 + t2 - 0.5f * t;
  w[1] = 1.5f * t3 - 2.5f * t2 + 1.0f;
  w[2] = -1.5f * t3 + 2.0f * t2 + 0.5f * t;
  w[3] = 0.5f * t3 - 0.5f * t2;
}

TG_HD TG_INLINE int clamp_index(int i, int n) { return i < 0 ? 0 : (i > n - 1 ? n - 1 : i); }

// Adds the bicubic interpolation of the four channels at continuous (qx, qy) to sum.
TG_HD TG_INLINE void add_bicubic(const std::uint8_t* source, int width, int height, float qx, float qy,
                                 float sum[4]) {
  const float fx = qx - 0.5f, fy = qy - 0.5f;
  const float flx = floorf(fx), fly = floorf(fy);
  const int x0 = int(flx) - 1, y0 = int(fly) - 1;
  float wx[4], wy[4];
  cubic_weights(fx - flx, wx);
  cubic_weights(fy - fly, wy);
  std::size_t col[4];
  for (int i = 0; i < 4; ++i) col[i] = 4 * std::size_t(clamp_index(x0 + i, width));
  for (int j = 0; j < 4; ++j) {
    const std::uint8_t* row = source + 4 * std::size_t(clamp_index(y0 + j, height)) * std::size_t(width);
    float line[4];
    for (int c = 0; c < 4; ++c)
      line[c] = wx[0] * float(row[col[0] + c]) + wx[1] * float(row[col[1] + c]) + wx[2] * float(row[col[2] + c]) +
                wx[3] * float(row[col[3] + c]);
    for (int c = 0; c < 4; ++c) sum[c] += wy[j] * line[c];
  }
}

}  // namespace resample_detail

TG_HD TG_INLINE void resample_pixel(const ResampleArgs& a, int x, int y) {
  using resample_detail::taps;
  const int n = a.subsamples;
  const float step = 1.0f / float(n);
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float mask_sum = 0.0f;
  bool inside = true;
  for (int j = 0; j < n && inside; ++j) {
    for (int i = 0; i < n && inside; ++i) {
      const float px = float(x) + (float(i) + 0.5f) * step, py = float(y) + (float(j) + 0.5f) * step;
      const float u = (px - a.dst_cx) / a.dst_fx, v = (py - a.dst_cy) / a.dst_fy;
      if (!raster::in_lens_domain(a.lens, u, v)) {
        inside = false;
        break;
      }
      const Vec2<float> d = raster::distort(a.lens, Vec2<float>{{u, v}});
      const float qx = a.src_fx * d[0] + a.src_cx, qy = a.src_fy * d[1] + a.src_cy;
      if (!(qx >= 0.0f && qx <= float(a.src_width) && qy >= 0.0f && qy <= float(a.src_height))) {
        inside = false;
        break;
      }
      if (a.bicubic) resample_detail::add_bicubic(a.source, a.src_width, a.src_height, qx, qy, sum);
      if (a.bicubic && !a.source_mask) continue;
      const resample_detail::Taps tx = taps(qx, a.src_width), ty = taps(qy, a.src_height);
      const std::size_t row0 = std::size_t(ty.i0) * a.src_width, row1 = std::size_t(ty.i1) * a.src_width;
      const std::size_t p00 = row0 + tx.i0, p01 = row0 + tx.i1, p10 = row1 + tx.i0, p11 = row1 + tx.i1;
      const float w00 = (1.0f - tx.w1) * (1.0f - ty.w1), w01 = tx.w1 * (1.0f - ty.w1);
      const float w10 = (1.0f - tx.w1) * ty.w1, w11 = tx.w1 * ty.w1;
      if (!a.bicubic)
        for (int c = 0; c < 4; ++c)
          sum[c] += w00 * float(a.source[4 * p00 + c]) + w01 * float(a.source[4 * p01 + c]) +
                    w10 * float(a.source[4 * p10 + c]) + w11 * float(a.source[4 * p11 + c]);
      if (a.source_mask)
        mask_sum += w00 * float(a.source_mask[p00]) + w01 * float(a.source_mask[p01]) +
                    w10 * float(a.source_mask[p10]) + w11 * float(a.source_mask[p11]);
    }
  }
  const float inv = 1.0f / float(n * n);
  const bool valid = inside && (!a.source_mask || mask_sum * inv >= 127.5f);
  const std::size_t p = std::size_t(y) * a.dst_width + x;
  a.valid[p] = valid ? 1 : 0;
  std::uint8_t out[4] = {0, 0, 0, 0};
  if (valid) {
    for (int c = 0; c < 4; ++c) {
      const float value = clamp(sum[c] * inv, 0.0f, 255.0f);
      out[c] = std::uint8_t(floorf(value + 0.5f));
    }
    // Premultiplied colour never exceeds its coverage.
    for (int c = 0; c < 3; ++c) out[c] = out[c] < out[3] ? out[c] : out[3];
  }
  for (int c = 0; c < 4; ++c) a.target[4 * p + c] = out[c];
}

}  // namespace tilegrad::training
