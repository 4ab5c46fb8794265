// The float/double CPU reference (see reference.h): per image row (and per sphere for edges) partial sums,
// combined in a fixed order.
#include "tilegrad/pathtracer/reference.h"

#include "../layout.h"
#include "loops.h"
#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {
namespace {

template <class T>
void check_inputs(const SceneT<T>& scene, const RenderSettings& rs) {
  validate_scene(scene_cast<float>(scene), "reference scene");
  validate(rs);
  TG_CHECK_ARG(!rs.soft || scene.spheres.size() <= static_cast<std::size_t>(kMaxSoftSpheres),
               "soft visibility handles at most ", kMaxSoftSpheres, " spheres");
}

}  // namespace

template <class T>
std::vector<T> reference_render(const SceneT<T>& scene, const RenderSettings& rs, const LightSets* sets) {
  check_inputs(scene, rs);
  const PreparedScene<T> prepared = prepare_scene(scene, sets);
  const SceneView<T> sc = prepared.view(sets != nullptr && !rs.soft);
  const int w = sc.camera.width, h = sc.camera.height;
  std::vector<T> image(static_cast<std::size_t>(w) * h * 3);
#pragma omp parallel for schedule(dynamic, 1)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Vec3<T> L = cpu_backend::pixel_radiance(sc, rs, x, y);
      for (int c = 0; c < 3; ++c) image[(static_cast<std::size_t>(y) * w + x) * 3 + c] = L[c];
    }
  return image;
}

template <class T>
ReferenceGradient<T> reference_gradient(const SceneT<T>& scene, const RenderSettings& rs, const GradientSettings& gs,
                                        const std::vector<T>& d_image) {
  check_inputs(scene, rs);
  validate(gs);
  const PreparedScene<T> prepared = prepare_scene(scene);
  const SceneView<T> sc = prepared.view(samples_dormant(rs, gs, prepared.dormant.size()));
  const int w = sc.camera.width, h = sc.camera.height;
  TG_CHECK_ARG(d_image.size() == static_cast<std::size_t>(w) * h * 3, "reference_gradient: d_image has ",
               d_image.size(), " values, expected ", static_cast<std::size_t>(w) * h * 3);
  const std::size_t n = scene.num_params();
  ReferenceGradient<T> g;
  g.interior.assign(n, T(0));
  g.boundary.assign(n, T(0));
  if (gs.interior) {
    std::vector<std::vector<T>> rows(h);
#pragma omp parallel for schedule(dynamic, 1)
    for (int y = 0; y < h; ++y) {
      std::vector<T> local(n, T(0));
      for (int x = 0; x < w; ++x)
        cpu_backend::pixel_contributions(sc, rs, x, y, d_image.data(), [&](int, int, int id, const T* row) {
          for (int c = 0; c < kSphereParams; ++c) local[static_cast<std::size_t>(id) * kSphereParams + c] += row[c];
        });
      rows[y] = std::move(local);
    }
    for (const auto& local : rows)
      for (std::size_t i = 0; i < n; ++i) g.interior[i] += local[i];
  }
  if (gs.boundary && !rs.soft) {
    const EdgeLayout edges = edge_layout(prepared, gs);
    const std::size_t curves = edges.curves.size();
    std::vector<std::vector<T>> part(curves, std::vector<T>(2 * kSphereParams, T(0)));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t i = 0; i < curves; ++i)
      cpu_backend::curve_contributions(sc, rs, edges.curves[i], d_image.data(), [&](std::uint32_t, const EdgeRows<T>& rows) {
        for (int c = 0; c < kSphereParams; ++c) {
          if (rows.has_a) part[i][c] += rows.a[c];
          if (rows.has_b) part[i][kSphereParams + c] += rows.b[c];
        }
      });
    for (std::size_t i = 0; i < curves; ++i) {  // curves in order: a fixed summation order
      const EdgeCurve& e = edges.curves[i];
      for (int c = 0; c < kSphereParams; ++c) {
        g.boundary[static_cast<std::size_t>(e.a) * kSphereParams + c] += part[i][c];
        if (e.b >= 0) g.boundary[static_cast<std::size_t>(e.b) * kSphereParams + c] += part[i][kSphereParams + c];
      }
    }
  }
  return g;
}

template <class T>
std::vector<std::uint64_t> reference_decisions(const SceneT<T>& scene, const RenderSettings& rs) {
  check_inputs(scene, rs);
  const PreparedScene<T> prepared = prepare_scene(scene);
  const SceneView<T> sc = prepared.view();
  const int w = sc.camera.width, h = sc.camera.height;
  std::vector<std::uint64_t> out(static_cast<std::size_t>(w) * h);
#pragma omp parallel for schedule(dynamic, 1)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint64_t sig = 1469598103934665603ull;  // FNV-1a over the decisions
      auto mix = [&](std::int64_t v) { sig = (sig ^ static_cast<std::uint64_t>(v)) * 1099511628211ull; };
      for (int s = 0; s < rs.spp; ++s) {
        PixelSample<T> ps;
        ps.trace(sc, rs, x, y, s);
        mix(ps.record.vertices);
        for (int b = 0; b < ps.record.vertices; ++b) {
          mix(ps.record.hit[b]);
          for (int k = 0; k < kLightSlots; ++k) {
            mix(ps.record.light[k][b]);
            mix(ps.record.light_used[k][b] ? 1 : 0);
          }
        }
      }
      out[static_cast<std::size_t>(y) * w + x] = sig;
    }
  return out;
}

template std::vector<float> reference_render<float>(const SceneT<float>&, const RenderSettings&, const LightSets*);
template std::vector<double> reference_render<double>(const SceneT<double>&, const RenderSettings&, const LightSets*);
template ReferenceGradient<float> reference_gradient<float>(const SceneT<float>&, const RenderSettings&,
                                                            const GradientSettings&, const std::vector<float>&);
template ReferenceGradient<double> reference_gradient<double>(const SceneT<double>&, const RenderSettings&,
                                                              const GradientSettings&, const std::vector<double>&);
template std::vector<std::uint64_t> reference_decisions<float>(const SceneT<float>&, const RenderSettings&);
template std::vector<std::uint64_t> reference_decisions<double>(const SceneT<double>&, const RenderSettings&);

}  // namespace tilegrad::pathtracer
