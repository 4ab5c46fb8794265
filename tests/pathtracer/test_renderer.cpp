// The float Renderer on the CPU backend: every accumulation strategy agrees with the others and with the
// float64 reference, the deterministic ones repeat bit for bit (any thread count), Owned falls back to
// SortReduce when tiles list too many spheres, the loss, and argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pathtracer_fixtures.h"
#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/loss.h"
#include "tilegrad/pathtracer/reference.h"
#include "tilegrad/pathtracer/renderer.h"
#include "tilegrad/pathtracer/scene_io.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

using test::relative_to_largest;
using test::smooth_adjoint;
using test::TraceCase;

RenderSettings settings_of(const TraceCase& c) { return test::settings_of(c, 2, 9); }

struct Result {
  std::vector<float> grad;
  BackwardStats stats;
};

Result backward(const Scene& scene, const RenderSettings& rs, Accumulation a, const std::vector<float>& adjoint,
                bool dormant_lights = true) {
  Renderer r(Device::Cpu);
  r.set_scene(scene);
  GradientSettings gs;
  gs.strategy = a;
  gs.dormant_lights = dormant_lights;
  Result out;
  out.grad.assign(scene.num_params(), 0.0f);
  out.stats = r.backward(rs, gs, View<const float>(adjoint.data(), adjoint.size(), Device::Cpu),
                         View<float>(out.grad.data(), out.grad.size(), Device::Cpu));
  return out;
}

const TraceCase kCases[] = {
    {"shaded", 40, 32, Integrator::Primary, 1, false}, {"shaded", 40, 32, Integrator::Direct, 1, false},
    {"shaded", 40, 32, Integrator::Path, 3, false},    {"overlap", 40, 32, Integrator::Primary, 1, false},
    {"overlap", 40, 32, Integrator::Primary, 1, true}, {"grid:40", 40, 32, Integrator::Direct, 1, false},
};

}  // namespace

TEST(Renderer, StrategiesAgreeWithEachOtherAndTheReference) {
  for (const TraceCase& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.scene << " " << to_string(c.integrator) << (c.soft ? " soft" : ""));
    const Scene scene = builtin_scene(c.scene, c.width, c.height);
    const RenderSettings rs = settings_of(c);
    const auto adjoint = smooth_adjoint(c.width, c.height);
    const auto ref = reference_gradient(scene_cast<double>(scene), rs, GradientSettings{},
                                        std::vector<double>(adjoint.begin(), adjoint.end()))
                         .total();
    const Result sorted = backward(scene, rs, Accumulation::SortReduce, adjoint);
    EXPECT_LT(relative_to_largest(sorted.grad, ref), 1e-4) << "float vs float64 reference";
    for (Accumulation a : kAllAccumulations) {
      const Result r = backward(scene, rs, a, adjoint);
      EXPECT_EQ(r.stats.strategy, a);
      EXPECT_LT(relative_to_largest(r.grad, sorted.grad), 1e-5) << to_string(a);
    }
  }
}

TEST(Renderer, DeterministicStrategiesRepeatBitwise) {
  const Scene scene = builtin_scene("overlap", 48, 40);
  const RenderSettings rs = settings_of({"overlap", 48, 40, Integrator::Direct, 1, false});
  const auto adjoint = smooth_adjoint(48, 40);
  for (Accumulation a : {Accumulation::SortReduce, Accumulation::Owned}) {
    const auto first = backward(scene, rs, a, adjoint).grad;
    for (int run = 0; run < 3; ++run) EXPECT_EQ(backward(scene, rs, a, adjoint).grad, first) << to_string(a);
#if defined(_OPENMP)
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto single = backward(scene, rs, a, adjoint).grad;
    omp_set_num_threads(threads);
    EXPECT_EQ(single, first) << to_string(a) << " with one thread";
#endif
  }
}

TEST(Renderer, OwnedFallsBackToSortReduceWhenTilesListTooManySpheres) {
  // Paths with bounces can reach any sphere, so every tile lists all 101 spheres (> 64).
  const Scene scene = builtin_scene("grid:100", 32, 24);
  const RenderSettings rs = settings_of({"grid:100", 32, 24, Integrator::Path, 2, false});
  const auto adjoint = smooth_adjoint(32, 24);
  const Result owned = backward(scene, rs, Accumulation::Owned, adjoint);
  EXPECT_EQ(owned.stats.strategy, Accumulation::SortReduce);
  EXPECT_EQ(owned.grad, backward(scene, rs, Accumulation::SortReduce, adjoint).grad);
}

TEST(Renderer, FloatImageMatchesTheReference) {
  for (const TraceCase& c : kCases) {
    const Scene scene = builtin_scene(c.scene, c.width, c.height);
    const RenderSettings rs = settings_of(c);
    Renderer r(Device::Cpu);
    r.set_scene(scene);
    const auto img = r.render(rs);
    const auto ref = reference_render(scene_cast<double>(scene), rs);
    std::size_t off = 0;
    for (std::size_t i = 0; i < img.size(); ++i) off += std::fabs(img[i] - ref[i]) > 1e-4 * (1 + std::fabs(ref[i]));
    // A sample right on an edge may land on the other side in float: a handful of values at most.
    EXPECT_LE(off, img.size() / 200) << c.scene << " " << to_string(c.integrator);
  }
}

TEST(Renderer, StatsDescribeTheWork) {
  const Scene scene = builtin_scene("overlap", 40, 32);
  const RenderSettings rs = settings_of({"overlap", 40, 32, Integrator::Primary, 1, false});
  const auto adjoint = smooth_adjoint(40, 32);
  const Result owned = backward(scene, rs, Accumulation::Owned, adjoint);
  EXPECT_EQ(owned.stats.pixel_samples, 40u * 32u * 2u);
  // The hit sphere, the light and the dormant light (two spheres of zero emission) of the one vertex.
  EXPECT_EQ(owned.stats.contributions, owned.stats.pixel_samples * 3);
  EXPECT_EQ(backward(scene, rs, Accumulation::Owned, adjoint, false).stats.contributions, owned.stats.pixel_samples * 2);
  EXPECT_GT(owned.stats.edge_samples, 0u);
  EXPECT_GT(owned.stats.record_bytes, 0u);
  EXPECT_GT(owned.stats.layout_bytes, 0u);
  const Result sorted = backward(scene, rs, Accumulation::SortReduce, adjoint);
  EXPECT_GE(sorted.stats.record_chunks, 1);
  EXPECT_GT(sorted.stats.record_bytes, owned.stats.record_bytes);
}

TEST(Renderer, RejectsBadArguments) {
  Renderer r(Device::Cpu);
  RenderSettings rs;
  std::vector<float> img(16 * 16 * 3), grad(30);
  View<float> iv(img.data(), img.size(), Device::Cpu);
  EXPECT_THROW(r.render(rs, iv), InvalidArgument);  // no scene yet
  r.set_scene(builtin_scene("overlap", 16, 16));
  EXPECT_NO_THROW(r.render(rs, iv));
  EXPECT_THROW(r.render(rs, iv.subview(0, 10)), InvalidArgument);
  rs.spp = 0;
  EXPECT_THROW(r.render(rs, iv), InvalidArgument);
  rs.spp = 1;
  rs.max_depth = 4;
  EXPECT_THROW(r.render(rs, iv), InvalidArgument);
  rs.max_depth = 3;
  GradientSettings gs;
  View<const float> adj(img.data(), img.size(), Device::Cpu);
  EXPECT_THROW(r.backward(rs, gs, adj, View<float>(grad.data(), 29, Device::Cpu)), InvalidArgument);
  EXPECT_THROW(r.backward(rs, gs, adj, View<float>(grad.data(), 30, Device::Cuda)), InvalidArgument);
  gs.edge_density = 0;
  EXPECT_THROW(r.backward(rs, gs, adj, View<float>(grad.data(), 30, Device::Cpu)), InvalidArgument);
  Scene bad = builtin_scene("overlap", 16, 16);
  bad.spheres[1].radius = -1;
  EXPECT_THROW(r.set_scene(bad), InvalidArgument);
  r.set_scene(builtin_scene("grid:20", 16, 16));
  rs.soft = true;
  EXPECT_THROW(r.render(rs, iv), InvalidArgument);  // soft visibility: at most 16 spheres
}

TEST(Loss, L2ValueAndAdjoint) {
  const std::vector<float> a = {1.0f, 2.0f, 3.0f, 0.5f}, b = {0.0f, 2.0f, 1.0f, 1.0f};
  std::vector<float> d(4);
  const double loss = l2_loss(View<const float>(a.data(), 4, Device::Cpu), View<const float>(b.data(), 4, Device::Cpu),
                              View<float>(d.data(), 4, Device::Cpu));
  EXPECT_DOUBLE_EQ(loss, (1.0 + 0.0 + 4.0 + 0.25) / 4);
  EXPECT_FLOAT_EQ(d[0], 0.5f);
  EXPECT_FLOAT_EQ(d[2], 1.0f);
  EXPECT_FLOAT_EQ(d[3], -0.25f);
  EXPECT_THROW(l2_loss(View<const float>(a.data(), 4, Device::Cpu), View<const float>(b.data(), 3, Device::Cpu),
                       View<float>(d.data(), 4, Device::Cpu)),
               InvalidArgument);
}
