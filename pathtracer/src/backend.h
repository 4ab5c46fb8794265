// Internal interface between the Renderer and its CPU and CUDA backends.
#pragma once
#include <memory>

#include "layout.h"
#include "prepared_scene.h"
#include "tilegrad/core/config.h"
#include "tilegrad/pathtracer/renderer.h"

namespace tilegrad::pathtracer {

// Everything the backward pass needs besides the scene, built on the host for one (scene, settings).
struct BackwardLayout {
  EdgeLayout edges;
  TileTables tiles;
  OwnedLayout owned;  // empty when the tiles do not fit
  unsigned version = 0;  // changes whenever the layout is rebuilt (backends cache their uploads)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void set_scene(const PreparedScene<float>& scene) = 0;
  virtual void render(const RenderSettings& settings, float* image) = 0;
  // gradient.dormant_lights: the backward samples the scene's dormant lights when samples_dormant() says so.
  virtual BackwardStats backward(const RenderSettings& settings, const GradientSettings& gradient,
                                 const BackwardLayout& layout, const float* d_image, float* d_params) = 0;
  virtual std::size_t memory_bytes() const = 0;
  // Owned: interior rows per sphere when each of the backend's blocks owns one row per sphere over many
  // tiles, or 0 for one row per tile that lists the sphere (see layout.h).
  virtual std::uint32_t owned_block_rows(const RenderSettings&, std::size_t /*num_spheres*/, bool /*dormant*/) const {
    return 0;
  }
};

std::unique_ptr<Backend> make_cpu_backend();
#if TILEGRAD_WITH_CUDA
std::unique_ptr<Backend> make_cuda_backend();
#endif

// SortReduce processes the image in chunks of whole tile rows holding at most this many records, which
// bounds the record memory at 1920 x 1080 x spp (see docs/PATHTRACER.md).
inline constexpr std::size_t kRecordBudget = std::size_t(1) << 23;

// Tile rows per SortReduce chunk for `records_per_pixel` records per pixel.
inline int tile_rows_per_chunk(int width, std::size_t records_per_pixel) {
  const std::size_t per_tile_row = static_cast<std::size_t>(width + kTileSize - 1) / kTileSize * kTileSize *
                                   kTileSize * records_per_pixel;
  const std::size_t rows = kRecordBudget / (per_tile_row > 0 ? per_tile_row : 1);
  return rows > 0 ? static_cast<int>(rows) : 1;
}

}  // namespace tilegrad::pathtracer
