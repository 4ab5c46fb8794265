// Renderer: argument checks, scene preparation, the cached backward layout, dispatch to a backend.
#include "tilegrad/pathtracer/renderer.h"

#include <tuple>

#include "backend.h"
#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {

struct Renderer::Impl {
  Device device;
  Scene scene;
  bool has_scene = false;
  PreparedScene<float> prepared;
  std::unique_ptr<Backend> backend;
  BackwardLayout layout;
  bool layout_valid = false;
  std::tuple<Integrator, int, bool, float, int, int, std::uint32_t, bool> layout_key;

  void require_scene() const {
    TG_REQUIRE(has_scene, InvalidArgument, "pathtracer: no scene (call Renderer::set_scene first)");
  }
  void check_settings(const RenderSettings& rs) const {
    validate(rs);
    TG_CHECK_ARG(!rs.soft || scene.spheres.size() <= static_cast<std::size_t>(kMaxSoftSpheres),
                 "soft visibility handles at most ", kMaxSoftSpheres, " spheres (the scene has ",
                 scene.spheres.size(), ")");
  }
  std::size_t image_floats() const {
    return static_cast<std::size_t>(scene.camera.width) * scene.camera.height * 3;
  }
  const BackwardLayout& backward_layout(const RenderSettings& rs, const GradientSettings& gs) {
    const bool dormant = samples_dormant(rs, gs, prepared.dormant.size());
    const std::uint32_t block_rows = backend->owned_block_rows(rs, prepared.num_spheres(), dormant);
    const auto key = std::make_tuple(rs.integrator, rs.max_depth, rs.soft, gs.edge_density, gs.edge_min_samples,
                                     gs.edge_max_samples, block_rows, dormant);
    if (!layout_valid || key != layout_key) {
      const unsigned version = layout.version + 1;
      layout.edges = edge_layout(prepared, gs);
      layout.tiles = tile_tables(prepared, rs, dormant);
      layout.owned = layout.tiles.fits()
                         ? owned_layout(layout.tiles, layout.edges, prepared.num_spheres(), block_rows)
                         : OwnedLayout{};
      layout.version = version;
      layout_key = key;
      layout_valid = true;
    }
    return layout;
  }
};

Renderer::Renderer(Device device) : m_impl(std::make_unique<Impl>()) {
  require_device(device);
  m_impl->device = device;
  if (device == Device::Cpu) {
    m_impl->backend = make_cpu_backend();
  } else {
#if TILEGRAD_WITH_CUDA
    m_impl->backend = make_cuda_backend();
#endif
  }
}
Renderer::~Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;

Device Renderer::device() const { return m_impl->device; }

void Renderer::set_scene(const Scene& scene) {
  validate_scene(scene);
  m_impl->scene = scene;
  m_impl->prepared = prepare_scene(scene);
  m_impl->backend->set_scene(m_impl->prepared);
  m_impl->has_scene = true;
  m_impl->layout_valid = false;
}

const Scene& Renderer::scene() const {
  m_impl->require_scene();
  return m_impl->scene;
}

void Renderer::render(const RenderSettings& settings, View<float> image) {
  m_impl->require_scene();
  m_impl->check_settings(settings);
  check_view(image, m_impl->image_floats(), m_impl->device, "image");
  m_impl->backend->render(settings, image.data());
}

std::vector<float> Renderer::render(const RenderSettings& settings) {
  m_impl->require_scene();
  Buffer<float> image(m_impl->image_floats(), m_impl->device);
  render(settings, image.view());
  return image.to_vector();
}

BackwardStats Renderer::backward(const RenderSettings& settings, const GradientSettings& gradient,
                                 View<const float> d_image, View<float> d_params) {
  m_impl->require_scene();
  m_impl->check_settings(settings);
  validate(gradient);
  check_view(d_image, m_impl->image_floats(), m_impl->device, "d_image");
  check_view(d_params, m_impl->scene.num_params(), m_impl->device, "d_params");
  const BackwardLayout& layout = m_impl->backward_layout(settings, gradient);
  return m_impl->backend->backward(settings, gradient, layout, d_image.data(), d_params.data());
}

std::size_t Renderer::memory_bytes() const { return m_impl->backend->memory_bytes(); }

}  // namespace tilegrad::pathtracer
