// CUDA forward render: one thread per pixel (16 x 16 tiles), every sample traced by the shared estimator.
#include "../layout.h"
#include "kernels.h"
#include "tilegrad/core/cuda/launch.cuh"
#include "tilegrad/pathtracer/pixel_sample.h"

namespace tilegrad::pathtracer::cuda_backend {
namespace {

template <bool SOFT, int MAX_DEPTH>
__global__ void __launch_bounds__(kTileSize * kTileSize) render_kernel(SceneView<float> sc, RenderSettings st, int tiles_x,
                                                                      float* image) {
  const int px = (blockIdx.x % tiles_x) * kTileSize + static_cast<int>(threadIdx.x % kTileSize);
  const int py = (blockIdx.x / tiles_x) * kTileSize + static_cast<int>(threadIdx.x / kTileSize);
  if (px >= sc.camera.width || py >= sc.camera.height) return;
  Vec3<float> sum = Vec3<float>::zero();
  for (int s = 0; s < st.spp; ++s) {
    PixelSample<float> ps;
    sum += ps.template trace_as<SOFT, MAX_DEPTH>(sc, st, px, py, s);
  }
  const float inv = 1.0f / static_cast<float>(st.spp);
  float* out = image + (static_cast<std::size_t>(py) * sc.camera.width + px) * 3;
  out[0] = sum[0] * inv;
  out[1] = sum[1] * inv;
  out[2] = sum[2] * inv;
}

}  // namespace

void launch_render(const SceneView<float>& sc, const RenderSettings& st, float* image) {
  const int tiles_x = (sc.camera.width + kTileSize - 1) / kTileSize;
  const int tiles_y = (sc.camera.height + kTileSize - 1) / kTileSize;
  const unsigned blocks = static_cast<unsigned>(tiles_x * tiles_y), threads = kTileSize * kTileSize;
  if (st.soft) {
    render_kernel<true, 1><<<blocks, threads>>>(sc, st, tiles_x, image);
  } else if (path_depth(st) == 1) {
    render_kernel<false, 1><<<blocks, threads>>>(sc, st, tiles_x, image);
  } else {
    render_kernel<false, kMaxDepth><<<blocks, threads>>>(sc, st, tiles_x, image);
  }
  TG_CUDA_CHECK_LAUNCH();
}

}  // namespace tilegrad::pathtracer::cuda_backend
