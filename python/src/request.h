// gsplat's arguments of one rasterization call -> the binding's RenderRequest (render.h): the arrays checked and
// viewed (float32, C-contiguous, shapes, one device), the cameras built from viewmats and Ks, the render mode parsed.
// Shared by _core.render and the binding's benchmark loop (benchmark_bindings.cpp), so both do the same per-call work.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "arrays.h"
#include "render.h"

namespace tilegrad::python {

// The request of one call. The views point into the arrays, which are appended to `keep_alive` (the caller keeps
// them until the Render is destroyed). Exactly one of colors and sh is given; means2d_out (optional) receives
// meta's means2d.
RenderRequest make_request(const Array& means, const Array& quats, const Array& scales, const Array& opacities,
                           const std::optional<Array>& colors, const std::optional<Array>& sh, const Array& viewmats,
                           const Array& ks, int width, int height, std::optional<int> sh_degree, float near_plane,
                           float far_plane, const std::optional<Array>& backgrounds, float eps2d, bool antialiased,
                           const std::string& render_mode, std::tuple<float, float, float, float> thresholds,
                           bool meta, const std::optional<nb::ndarray<>>& means2d_out,
                           std::vector<Array>& keep_alive);

}  // namespace tilegrad::python
