// One call of tilegrad.rasterization: the Gaussians in gsplat's conventions (activated scales and opacities)
// rendered from C cameras with the library's Rasterizer, the outputs stacked per camera in a render mode's
// layout, and the backward that sums the cameras' gradients and chains them back to the activated parameters.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "ops.h"
#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::python {

struct RenderRequest {
  Device device = Device::Cpu;
  std::size_t count = 0;  // N
  View<const float> means, quats, scales, opacities;  // [N, 3], [N, 4], [N, 3], [N]
  View<const float> colors;  // [N, 3] or [C, N, 3] precomputed colours, or empty
  View<const float> sh;      // [N, K, 3] or [C, N, K, 3] SH coefficients, or empty
  bool per_camera_colors = false;  // colors / sh carry a leading camera dimension
  int stored_degree = 0;           // SH: K = (stored_degree + 1)^2
  int sh_degree = -1;              // SH degree rendered (<= stored_degree)
  int width = 0, height = 0;
  std::vector<raster::Camera> cameras;            // of that size
  std::vector<std::array<float, 3>> backgrounds;  // one per camera
  PixelLayout layout;
  float blur = 0.3f;
  bool antialiased = false;
  raster::Thresholds thresholds;
  bool meta = true;  // compute the projection summary (means2d, depths, conics, opacities, radii)
  float* means2d_out = nullptr;  // [C, N, 2] on the device: the summary's means2d goes there (a caller's array)
};

struct RenderGradients {
  Buffer<float> means, scales, quats, opacities;  // [N, 3], [N, 3], [N, 4], [N]
  Buffer<float> colors, sh;                       // as the inputs (one of them; the other empty)
  Buffer<float> means2d, means2d_abs;             // [C, N, 2] (means2d_abs empty unless requested)
  std::vector<float> backgrounds;                 // [C, 3] on the host, empty unless requested
};

class Render {
 public:
  // Renders every camera. The request's views must stay valid until the Render is destroyed (the binding keeps
  // their arrays alive).
  explicit Render(RenderRequest request);

  int cameras() const { return static_cast<int>(m_request.cameras.size()); }
  int width() const { return m_request.width; }
  int height() const { return m_request.height; }
  const RenderRequest& request() const { return m_request; }

  // Outputs, moved out once by the binding.
  Buffer<float> colors;   // [C, H, W, X]
  Buffer<float> alphas;   // [C, H, W]
  // Projection summary per camera (when request.meta); means2d stays empty with request.means2d_out.
  Buffer<float> means2d, depths, conics, opacities;  // [C, N, 2], [C, N], [C, N, 3], [C, N]
  Buffer<std::int32_t> radii;                        // [C, N, 2]
  std::size_t instances = 0;                         // (Gaussian, tile) pairs over all cameras

  // Gradients of a loss given dL/dcolors [C, H, W, X] and optionally dL/dalphas [C, H, W] (empty view: zero).
  RenderGradients backward(View<const float> v_colors, View<const float> v_alphas, bool absgrad,
                           Accumulation accumulation, bool check_finite, bool background_gradients);

 private:
  raster::GaussiansView view_for(int camera) const;
  View<const float> log_scales() const { return m_parameters.view().subview(0, m_request.count * 3); }
  View<const float> logits() const { return m_parameters.view().subview(m_request.count * 3, m_request.count); }

  RenderRequest m_request;
  raster::Rasterizer* m_rasterizer = nullptr;  // the process's rasterizer of the device rendered on
  int m_cuda_index = -1;                      // that CUDA device's index (-1: the CPU)
  Buffer<float> m_parameters;  // the library's parameters of the activated ones: log-scales [N, 3], logits [N]
  std::vector<raster::ForwardOutput> m_outputs;
};

}  // namespace tilegrad::python
