// CUDA loss: the passes of loss_passes.h fused by tiles of 16x16 pixels (all three channels), two launches.
//   1. loss kernel:     x and y of the tile and its 5-pixel halo into shared memory, their row moments (pass 1)
//                       for the tile's columns over the halo's rows, then the column sums, SSIM and partials
//                       (pass 2) of the tile's elements and the block's sums of the values.
//   2. gradient kernel: the partial planes of the tile and its halo, their row sums (pass 3), then the column
//                       sums and the gradient (pass 4).
// Both sum in the order the per-element passes do (window_sum, window_moments), so the gradient is the one the
// separate passes compute. The values are a deterministic two-level reduction: a fixed block tree, then the
// block partials in order by one block (the gradient kernel's first, or a kernel of its own without a gradient).
// Arguments are __grid_constant__: the shared passes take them by reference, which would otherwise copy them per
// thread.
#include "cuda_backend.h"
#include "tilegrad/core/cuda/block_reduce.cuh"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::training::cuda_backend {
namespace {

using detail::LossArgs;
constexpr int kBlock = 256;
constexpr int kTile = 16;                        // pixels per side of a tile
constexpr int kSpan = kTile + 2 * kSsimRadius;   // pixels per side of a tile with its halo
constexpr int kTileElements = kTile * kTile * 3; // (pixel, channel) elements of a tile
constexpr int kSums = 4;                         // ElementSums
enum WorkspaceSlot : std::size_t { kBlockSums = 0 };

// The block's tile and the three loops both kernels run over it, each a block-strided loop over the entries
// inside the image (what lies outside is zero padding, never read).
struct Tile {
  int x0, y0;  // the tile's first pixel
  __device__ Tile() : x0(int(blockIdx.x) * kTile), y0(int(blockIdx.y) * kTile) {}
  // Element e of the image at pixel (x, y), channel c.
  __device__ static std::size_t element(const LossArgs<float>& a, int x, int y, int c) {
    return (std::size_t(y) * a.width + x) * 3 + c;
  }
  // f(i, e): entry i of the tile with its halo ([halo row][halo column][channel], kSpan x kSpan x 3), image element e.
  template <class F>
  __device__ void for_halo(const LossArgs<float>& a, const F& f) const {
    for (int i = threadIdx.x; i < kSpan * kSpan * 3; i += kBlock) {
      const int c = i % 3, hx = (i / 3) % kSpan, hy = i / (3 * kSpan);
      const int x = x0 - kSsimRadius + hx, y = y0 - kSsimRadius + hy;
      if (x < 0 || x >= a.width || y < 0 || y >= a.height) continue;
      f(i, element(a, x, y, c));
    }
  }
  // f(i, x, line): entry i of the row sums ([halo row][tile column][channel], kSpan x kTile x 3) at column x; the halo
  // entry of column j of that row and channel is line + 3 j.
  template <class F>
  __device__ void for_rows(const LossArgs<float>& a, const F& f) const {
    for (int i = threadIdx.x; i < kSpan * kTile * 3; i += kBlock) {
      const int c = i % 3, tx = (i / 3) % kTile, hy = i / (3 * kTile);
      const int x = x0 + tx, y = y0 - kSsimRadius + hy;
      if (x >= a.width || y < 0 || y >= a.height) continue;
      f(i, x, hy * kSpan * 3 + c - (x0 - kSsimRadius) * 3);
    }
  }
  // f(e, y, column): the tile's element e at row y; the row sum of row j in its column and channel is entry
  // column + j kTile 3.
  template <class F>
  __device__ void for_elements(const LossArgs<float>& a, const F& f) const {
    for (int i = threadIdx.x; i < kTileElements; i += kBlock) {
      const int c = i % 3, tx = (i / 3) % kTile, ty = i / (3 * kTile);
      const int x = x0 + tx, y = y0 + ty;
      if (x >= a.width || y >= a.height) continue;
      f(element(a, x, y, c), y, tx * 3 + c - (y0 - kSsimRadius) * kTile * 3);
    }
  }
};

// Sums the 4 values of every block in order (one block) and writes the LossValues.
__device__ void finish_loss_values(const double* block_sums, unsigned blocks, std::size_t n, float lambda,
                                   float* values) {
  double totals[kSums];
  for (int k = 0; k < kSums; ++k) {
    double s = 0.0;
    for (unsigned b = threadIdx.x; b < blocks; b += kBlock) s += block_sums[kSums * b + k];
    totals[k] = cuda::block_sum<kBlock>(s);
    __syncthreads();
  }
  if (threadIdx.x == 0) detail::finish_values(totals[0], totals[1], totals[2], totals[3], n, lambda, values);
}

// Block (bx, by) writes its sums of |x - y|, SSIM, (x - y)^2 and counted elements to block_sums[4 b .. 4 b + 3],
// b = by * gridDim.x + bx.
__global__ void __launch_bounds__(kBlock) loss_kernel(const __grid_constant__ LossArgs<float> a, double* block_sums) {
  __shared__ float xs[kSpan * kSpan * 3], ys[kSpan * kSpan * 3];  // [halo row][halo column][channel]
  __shared__ float rows[5][kSpan * kTile * 3];                      // [moment][halo row][tile column][channel]
  const Tile t;
  t.for_halo(a, [&](int i, std::size_t e) {
    xs[i] = a.x(e);
    ys[i] = a.y(e);
  });
  __syncthreads();
  t.for_rows(a, [&](int i, int x, int line) {
    float m[5];
    detail::window_moments(
        a.window, x, a.width,
        [&](int j, float& xv, float& yv) {
          xv = xs[line + 3 * j];
          yv = ys[line + 3 * j];
        },
        m);
    TG_UNROLL for (int q = 0; q < 5; ++q) rows[q][i] = m[q];
  });
  __syncthreads();
  double sums[kSums] = {0.0, 0.0, 0.0, 0.0};
  t.for_elements(a, [&](std::size_t e, int y, int column) {
    float m[5];
    TG_UNROLL for (int q = 0; q < 5; ++q)
      m[q] = window_sum(a.window, y, a.height, [&](int j) { return rows[q][column + j * kTile * 3]; });
    const detail::ElementSums<float> s = detail::ssim_element(a, e, m);
    sums[0] += double(s.abs_diff);
    sums[1] += double(s.ssim);
    sums[2] += double(s.sq_diff);
    sums[3] += double(s.counted);
  });
  const unsigned b = blockIdx.y * gridDim.x + blockIdx.x;
  for (int k = 0; k < kSums; ++k) {
    const double sum = cuda::block_sum<kBlock>(sums[k]);
    if (threadIdx.x == 0) block_sums[kSums * b + k] = sum;
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kBlock)
    loss_values_kernel(const double* block_sums, unsigned blocks, std::size_t n, float lambda, float* values) {
  finish_loss_values(block_sums, blocks, n, lambda, values);
}

// Block (0, 0) also finishes the values from the loss kernel's block sums (which precede it in the stream).
__global__ void __launch_bounds__(kBlock)
    gradient_kernel(const __grid_constant__ LossArgs<float> a, const double* block_sums, float* values) {
  __shared__ float ps[3][kSpan * kSpan * 3];  // [partial][halo row][halo column][channel]
  __shared__ float rows[3][kSpan * kTile * 3];
  if (blockIdx.x == 0 && blockIdx.y == 0)
    finish_loss_values(block_sums, gridDim.x * gridDim.y, a.counted, a.lambda, values);
  const Tile t;
  const std::size_t n = a.elements();
  t.for_halo(a, [&](int i, std::size_t e) { TG_UNROLL for (int q = 0; q < 3; ++q) ps[q][i] = a.partials[q * n + e]; });
  __syncthreads();
  t.for_rows(a, [&](int i, int x, int line) {
    TG_UNROLL for (int q = 0; q < 3; ++q)
      rows[q][i] = window_sum(a.window, x, a.width, [&](int j) { return ps[q][line + 3 * j]; });
  });
  __syncthreads();
  t.for_elements(a, [&](std::size_t e, int y, int column) {
    float g[3];
    TG_UNROLL for (int q = 0; q < 3; ++q)
      g[q] = window_sum(a.window, y, a.height, [&](int j) { return rows[q][column + j * kTile * 3]; });
    detail::gradient_element(a, e, g);
  });
}

}  // namespace

void image_loss(const LossArgs<float>& a, float* values, Workspace& ws) {
  const dim3 grid(unsigned((a.width + kTile - 1) / kTile), unsigned((a.height + kTile - 1) / kTile));
  const unsigned blocks = grid.x * grid.y;
  double* block_sums = ws.slot<double>(kBlockSums, std::size_t(blocks) * kSums + kSums);
  loss_kernel<<<grid, kBlock>>>(a, block_sums);
  TG_CUDA_CHECK_LAUNCH();
  if (a.grad) {
    gradient_kernel<<<grid, kBlock>>>(a, block_sums, values);
  } else {
    loss_values_kernel<<<1, kBlock>>>(block_sums, blocks, a.counted, a.lambda, values);
  }
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::training::cuda_backend
