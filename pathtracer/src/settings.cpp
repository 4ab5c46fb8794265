// Names and validation of the render and gradient settings.
#include "tilegrad/pathtracer/settings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "tilegrad/core/error.h"

namespace tilegrad::pathtracer {

const char* to_string(Integrator integrator) {
  switch (integrator) {
    case Integrator::Primary: return "primary";
    case Integrator::Direct: return "direct";
    case Integrator::Path: return "path";
  }
  return "?";
}

Integrator parse_integrator(std::string_view name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (s == "primary") return Integrator::Primary;
  if (s == "direct") return Integrator::Direct;
  if (s == "path") return Integrator::Path;
  throw InvalidArgument("unknown integrator '" + std::string(name) + "' (expected primary, direct or path)");
}

void validate(const RenderSettings& s) {
  TG_CHECK_ARG(s.spp >= 1 && s.spp <= 65536, "render settings: spp must be in 1..65536 (got ", s.spp, ")");
  TG_CHECK_ARG(s.max_depth >= 1 && s.max_depth <= kMaxDepth, "render settings: max_depth must be in 1..", kMaxDepth,
               " (got ", s.max_depth, ")");
  TG_CHECK_ARG(std::isfinite(s.softness) && s.softness > 0.0f, "render settings: softness must be positive (got ",
               s.softness, ")");
  TG_CHECK_ARG(std::isfinite(s.depth_softness) && s.depth_softness > 0.0f,
               "render settings: depth_softness must be positive (got ", s.depth_softness, ")");
}

void validate(const GradientSettings& s) {
  TG_CHECK_ARG(std::isfinite(s.edge_density) && s.edge_density > 0.0f,
               "gradient settings: edge_density must be positive (got ", s.edge_density, ")");
  TG_CHECK_ARG(s.edge_min_samples >= 1 && s.edge_min_samples <= s.edge_max_samples,
               "gradient settings: need 1 <= edge_min_samples <= edge_max_samples (got ", s.edge_min_samples, ", ",
               s.edge_max_samples, ")");
  TG_CHECK_ARG(s.edge_max_samples <= (1 << 24), "gradient settings: edge_max_samples must be at most 2^24 (got ",
               s.edge_max_samples, ")");
}

}  // namespace tilegrad::pathtracer
