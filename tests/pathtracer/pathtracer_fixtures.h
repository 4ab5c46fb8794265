// Inputs shared by the path tracer suites: test cases (scene, integrator, visibility) and a smooth adjoint.
#pragma once
#include <cmath>
#include <vector>

#include "tilegrad/pathtracer/scene_io.h"
#include "tilegrad/pathtracer/settings.h"

namespace tilegrad::test {

struct TraceCase {
  const char* scene;
  int width, height;
  pathtracer::Integrator integrator;
  int depth;
  bool soft;
};

inline pathtracer::RenderSettings settings_of(const TraceCase& c, int spp, std::uint32_t seed) {
  pathtracer::RenderSettings rs;
  rs.integrator = c.integrator;
  rs.max_depth = c.depth;
  rs.soft = c.soft;
  rs.spp = spp;
  rs.seed = seed;
  return rs;
}

// builtin shaded (ground 0, subject 1, light 2: all but the light at zero emission) and a dark sphere (3)
// beside the light, outside the view: its emission acts only through the light it would cast.
inline pathtracer::Scene dark_beside_light(int w, int h) {
  pathtracer::Scene s = pathtracer::builtin_scene("shaded", w, h);
  s.spheres.push_back({Vec3<float>{{1.2f, 5.0f, 4.0f}}, 0.8f, Vec3<float>{{0.5f, 0.5f, 0.5f}}, Vec3<float>::zero()});
  return s;
}

// A smooth image adjoint: edges add up coherently over it (a random one would average them away).
inline std::vector<float> smooth_adjoint(int w, int h, float fx = 0.3f, float fy = 0.2f) {
  std::vector<float> a(static_cast<std::size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        a[(static_cast<std::size_t>(y) * w + x) * 3 + c] = 0.3f + std::sin(fx * x + c) * std::cos(fy * y - c);
  return a;
}

// max_i |a_i - b_i| / max_i |b_i|
template <class A, class B>
double relative_to_largest(const std::vector<A>& a, const std::vector<B>& b) {
  double largest = 0, worst = 0;
  for (const B& x : b) largest = std::fmax(largest, std::fabs(double(x)));
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::fmax(worst, std::fabs(double(a[i]) - double(b[i])));
  return largest > 0 ? worst / largest : worst;
}

}  // namespace tilegrad::test
