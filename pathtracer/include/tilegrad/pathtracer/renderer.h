// The path tracer's C++ API: render an image, and backpropagate an image adjoint dL/dimage to the sphere
// parameters (interior + boundary terms) with a chosen accumulation strategy, on the CPU or CUDA backend.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tilegrad/core/buffer.h"
#include "tilegrad/pathtracer/scene.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::pathtracer {

struct BackwardStats {
  Accumulation strategy = Accumulation::Owned;  // the one that ran: Owned falls back to SortReduce when a
                                                // tile lists more than 64 spheres (see docs/PATHTRACER.md)
  std::size_t pixel_samples = 0;     // width x height x spp
  std::size_t contributions = 0;     // interior contribution slots: pixel samples x spheres a sample can
                                     // touch (2 for primary/direct, 2 x depth for paths, all when soft)
  std::size_t edge_samples = 0;
  std::size_t record_bytes = 0;      // SortReduce: records of the largest chunk; Owned: the partial slots
  std::size_t layout_bytes = 0;      // Owned: tile tables and slot maps
  std::uint32_t owned_blocks = 0;    // Owned on CUDA, one sample of one hard vertex, at most 64 spheres:
                                     // blocks that each own one partial row per sphere (0: one row per
                                     // tile and listed sphere)
  std::size_t workspace_bytes = 0;   // accumulator scratch (sort buffers, chunk partials)
  int record_chunks = 0;             // SortReduce: passes over the image (bounded record memory)
};

class Renderer {
 public:
  explicit Renderer(Device device = Device::Cpu);
  ~Renderer();
  Renderer(Renderer&&) noexcept;
  Renderer& operator=(Renderer&&) noexcept;

  Device device() const;

  // Validates the scene (throws InvalidArgument naming the field), builds the hierarchy and uploads it.
  void set_scene(const Scene& scene);
  const Scene& scene() const;

  // image: [height][width][3] linear radiance on this renderer's device.
  void render(const RenderSettings& settings, View<float> image);
  std::vector<float> render(const RenderSettings& settings);  // host copy, for convenience

  // d_params = dL/dtheta for the image adjoint d_image = dL/dimage ([height][width][3], this device):
  // [spheres x 10] in SphereParam order, overwritten. The same settings (seed included) as the render of
  // the image make the interior term the exact derivative of that image's samples.
  BackwardStats backward(const RenderSettings& settings, const GradientSettings& gradient,
                         View<const float> d_image, View<float> d_params);

  // Bytes this renderer holds for the scene, layouts, records and scratch.
  std::size_t memory_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tilegrad::pathtracer
