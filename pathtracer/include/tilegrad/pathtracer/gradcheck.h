// Gradient check of the path tracer: a renderer's gradient of a fixed smooth linear loss sum(w * image)
// against finite differences of float64 renders that hold the sampler fixed, with a pass/fail criterion per
// entry. `tilegrad pathtrace gradcheck` prints it.
//
// The sampler held fixed: the same random numbers, and every sphere stays in the list it is sampled from in
// the unperturbed scene (light_sets(scene, true): the lights, and every other sphere as a dormant light). Such
// a render of the perturbed scene is an unbiased estimate of its image, so the difference quotient estimates
// the derivative of the expected image, from the right at emission 0: a gradient without the dormant lights
// (GradientSettings::dormant_lights off) fails it where a dark sphere would light the scene.
#pragma once
#include <string>
#include <vector>

#include "tilegrad/pathtracer/renderer.h"

namespace tilegrad::pathtracer {

// What an entry is measured against: entries of one kind share units.
enum class ParamKind { Geometry, Albedo, Emission };
ParamKind param_kind(int param);
const char* param_name(int param);  // "center.x", ..., "emission.b"

struct GradcheckOptions {
  std::vector<int> spheres;  // spheres to check (empty: all)
  // Finite-difference step: for centres and radii this fraction of the smallest radius in the scene (a length
  // that suits every sphere, where the sphere's own radius can be that of a ground plane), for albedo and
  // emission this fraction of max(|value|, 0.1); 0: the default for the mode (default_gradcheck_step).
  double step = 0.0;
  // Pass when |AD - FD| <= tolerance x the largest |FD| of the entry's kind; 0: the default for the mode
  // (default_gradcheck_tolerance).
  double tolerance = 0.0;
};

// Hard edges: finite differences count the samples that cross an edge between theta - h and theta + h, a
// noisy estimate of the boundary term that needs a step of many samples' worth (0.01, tolerance 0.05); soft
// visibility is smooth, and a small step (1e-4) keeps the central difference's error far below its
// tolerance (1e-4).
double default_gradcheck_step(const RenderSettings& settings);
double default_gradcheck_tolerance(const RenderSettings& settings);

struct GradcheckEntry {
  int sphere = 0, param = 0;
  double interior = 0, boundary = 0;  // the float64 reference's terms
  double device = 0;                  // the renderer's gradient (its device and strategy)
  double fd = 0;                      // finite difference
  bool one_sided = false;             // at the lower (or upper) end of the parameter's range
  double error = 0;                   // |device - fd| / largest |fd| of its kind
  bool pass = false;
};

struct GradcheckReport {
  std::vector<GradcheckEntry> entries;
  double step = 0, tolerance = 0;
  double largest[3] = {0, 0, 0};  // largest |fd| per ParamKind
  Accumulation strategy = Accumulation::Owned;  // what the renderer ran
  int failed = 0;
  const GradcheckEntry* worst() const;  // largest error (null when empty)
  bool passed() const { return failed == 0 && !entries.empty(); }
};

// The renderer holds the scene. The weights are a smooth field over the image (edges add up coherently).
GradcheckReport gradcheck(Renderer& renderer, const RenderSettings& settings, const GradientSettings& gradient,
                          const GradcheckOptions& options);

}  // namespace tilegrad::pathtracer
