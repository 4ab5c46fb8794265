// Gaussian scene parameters as structure-of-arrays buffers on one device, and a non-owning view of them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/core/buffer.h"

namespace tilegrad::raster {

constexpr int kMaxShDegree = 3;
// Number of SH coefficients per colour channel for a degree.
constexpr int sh_coefficients(int degree) { return (degree + 1) * (degree + 1); }

// Non-owning parameters (the form the rasterizer API takes; user code can wrap its own allocations).
// Activations are applied inside the rasterizer: scale = exp(log_scale), opacity = sigmoid(logit),
// rotation = normalize(quat) with quat = (w, x, y, z).
struct GaussiansView {
  std::size_t count = 0;
  int sh_degree = 0;                 // degree the coefficients are stored for (0..3)
  Device device = Device::Cpu;
  View<const float> means;           // [N, 3]
  View<const float> log_scales;      // [N, 3]
  View<const float> quats;           // [N, 4] (w, x, y, z)
  View<const float> opacity_logits;  // [N]
  View<const float> sh;              // [N, K, 3], K = (sh_degree + 1)^2, coefficient-major then RGB
  View<const float> colors;          // optional [N, 3] precomputed RGB; used instead of SH when non-empty
  // Bumped by whoever changes the parameters in place (optimisers): a backward with a different version than
  // its forward is refused, since its saved state would no longer match the parameters.
  std::uint64_t version = 0;
};

// Throws InvalidArgument naming the field whose size or device is wrong.
void validate(const GaussiansView& g);

// Owning parameters.
struct Gaussians {
  int sh_degree = 0;
  std::uint64_t version = 0;  // see GaussiansView::version; bump after in-place updates
  Buffer<float> means, log_scales, quats, opacity_logits, sh;
  Buffer<float> colors;  // optional, see GaussiansView::colors

  static Gaussians allocate(std::size_t count, int sh_degree, Device device);
  std::size_t count() const { return opacity_logits.size(); }
  Device device() const { return opacity_logits.device(); }
  Gaussians to(Device device) const;
  // Copies into `dst` on `device`, reusing dst's buffers whose size is unchanged (no allocation).
  void copy_into(Gaussians& dst, Device device) const;
  GaussiansView view() const;
};

}  // namespace tilegrad::raster
