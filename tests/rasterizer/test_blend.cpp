// The blend step (element/blend.h) against the AD layer: the hand-written per-fragment derivatives against dual
// numbers through fragment_at, and a whole pixel's reverse sweep against dual numbers through the forward's own
// fragment_at and composite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "blend_fixtures.h"
#include "tilegrad/rasterizer/element/blend.h"

using namespace tilegrad;
using namespace tilegrad::raster;

namespace {

template <class T>
void check_fragment_vjp(double tolerance) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Thresholds th;
  int used = 0, clamped = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Splat<T> s = test::random_splat<T>(rng);
    const T d_alpha = T(3.0 * u(rng));
    const Fragment<T> f = fragment_at(s, T(5.5), T(7.5), th);
    T generated[kGrad2dWidth] = {};
    fragment_vjp_dual<true>(s, T(5.5), T(7.5), th, d_alpha, generated);
    if (!f.used || f.clamped) {
      // Alpha does not depend on the splat here (skipped, or at max_alpha): the generated derivatives vanish.
      for (int e : {kGradU, kGradV, kGradConicA, kGradConicB, kGradConicC, kGradOpacity}) EXPECT_EQ(generated[e], T(0));
      clamped += f.used;
      continue;
    }
    ++used;
    T hand[kGrad2dWidth] = {};
    fragment_vjp<true>(f, s, d_alpha, hand);
    for (int e : {kGradU, kGradV, kGradConicA, kGradConicB, kGradConicC, kGradOpacity, kGradAbsU, kGradAbsV}) {
      const int base = e == kGradAbsU ? kGradU : e == kGradAbsV ? kGradV : e;
      EXPECT_LE(std::fabs(double(hand[e]) - double(generated[e])), tolerance * test::term_scale(f, s, d_alpha, base) + 1e-300)
          << "trial " << trial << " entry " << e << ": " << hand[e] << " vs " << generated[e];
    }
  }
  EXPECT_GT(used, 500);
  EXPECT_GT(clamped, 20);
}

}  // namespace

TEST(Blend, FragmentDerivativesAreTheGeneratedOnesFloat64) { check_fragment_vjp<double>(1e-14); }

TEST(Blend, FragmentDerivativesAreTheGeneratedOnesFloat32) { check_fragment_vjp<float>(4e-6); }

// A pixel of K fragments: its forward (fragment_at + composite, front to back) run with dual numbers over every
// fragment's splat, colour and depth gives dL/d of all of them for L = w . (rgb + T background) + w_a alpha +
// w_d depth. The backward (start_sweep, fragment_backward back to front from the last contributor) must give the
// same records.
TEST(Blend, ReverseSweepIsTheDerivativeOfThePixelForward) {
  constexpr int K = 6, P = 10;  // fragments; partials per fragment: u, v, a, b, c, opacity, r, g, b, depth
  using D = Dual<double, K * P>;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0), unit(0.0, 1.0);
  Thresholds th;
  th.min_transmittance = 0.02f;  // some pixels stop early
  const float background[3] = {0.2f, 0.5f, 0.9f};
  int stopped = 0, checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Splat<double> s[K];
    Vec4<double> cd[K];
    for (int i = 0; i < K; ++i) {
      s[i] = test::random_splat<double>(rng);
      cd[i] = test::random_colour_depth<double>(rng);
    }
    const double w_rgb[3] = {u(rng), u(rng), u(rng)}, w_alpha = u(rng), w_depth = 0.1 * u(rng);

    // Forward with duals; the contributors and the final transmittance as the backends keep them.
    Composite<D> c;
    int contributors = 0;
    for (int i = 0; i < K; ++i) {
      const Splat<D> sd{D::variable(s[i].u, P * i), D::variable(s[i].v, P * i + 1), D::variable(s[i].a, P * i + 2),
                        D::variable(s[i].b, P * i + 3), D::variable(s[i].c, P * i + 4),
                        D::variable(s[i].opacity, P * i + 5)};
      Vec4<D> cdd;
      for (int k = 0; k < 4; ++k) cdd[k] = D::variable(cd[i][k], P * i + 6 + k);
      const Fragment<D> f = fragment_at(sd, 5.5, 7.5, th);
      if (!f.used) continue;
      if (!composite(c, f, cdd, th)) {
        ++stopped;
        break;
      }
      contributors = i + 1;
    }
    D loss = w_alpha * (1.0 - c.trans) + w_depth * c.depth;
    for (int k = 0; k < 3; ++k) loss += w_rgb[k] * (c.rgb[k] + c.trans * double(background[k]));

    ReverseSweep<double> sweep =
        start_sweep(5, 7, c.trans.v, Vec3<double>{{w_rgb[0], w_rgb[1], w_rgb[2]}}, w_alpha, w_depth, background);
    for (int i = contributors; i-- > 0;) {
      double record[kGrad2dWidth] = {};
      if (!fragment_backward<kGrad2dWidth>(sweep, s[i], cd[i], th, record)) continue;
      const int entries[P] = {kGradU, kGradV, kGradConicA, kGradConicB, kGradConicC, kGradOpacity,
                              kGradColor, kGradColor + 1, kGradColor + 2, kGradDepth};
      for (int k = 0; k < P; ++k) {
        const double want = loss.d[P * i + k];
        EXPECT_NEAR(record[entries[k]], want, 1e-12 * (1.0 + std::fabs(want))) << "trial " << trial << " fragment " << i
                                                                              << " entry " << entries[k];
        ++checked;
      }
    }
  }
  EXPECT_GT(stopped, 10);
  EXPECT_GT(checked, 3000);
}

// sweep_past (a depth chunk's replay of the fragments behind it) leaves the sweep in the state fragment_backward
// leaves, bit for bit, whether the fragment is used at the pixel or not.
TEST(Blend, SweepPastMovesTheSweepAsTheBackwardDoes) {
  constexpr int K = 16;
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), unit(0.0f, 1.0f);
  const Thresholds th;
  const float white[3] = {1.0f, 1.0f, 1.0f};
  int used = 0, unused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Vec3<float> w_rgb{{u(rng), u(rng), u(rng)}};
    ReverseSweep<float> full = start_sweep(3, 9, 0.01f + 0.99f * unit(rng), w_rgb, u(rng), 0.1f * u(rng), white);
    ReverseSweep<float> replay = full;
    for (int i = 0; i < K; ++i) {
      const Splat<float> s = test::random_splat<float>(rng);
      const Vec4<float> cd = test::random_colour_depth<float>(rng);
      float record[kGrad2dWidth];
      const bool a = fragment_backward<kGrad2dWidth>(full, s, cd, th, record);
      const bool b = sweep_past(replay, s, cd, th);
      ASSERT_EQ(a, b);
      (a ? used : unused) += 1;
      ASSERT_EQ(std::memcmp(&full.trans, &replay.trans, sizeof(float)), 0) << "trial " << trial << " fragment " << i;
      ASSERT_EQ(std::memcmp(full.behind, replay.behind, sizeof full.behind), 0) << "trial " << trial;
    }
  }
  EXPECT_GT(used, 1000);
  EXPECT_GT(unused, 100);
}

// With no loss on alpha and a black background the sweep's alpha term (dL/dalpha_out - dL/dbackground) t_final
// is a signed zero, and fragment_backward skips its division by 1 - alpha. Skipped or not (a backend clears
// outside_zero for a whole warp when one of its pixels has a non-zero term), the records and the sweep keep the
// same bits; and a used fragment writes every entry of its record, clamped ones included.
TEST(Blend, ZeroAlphaTermSkipsItsDivisionWithTheSameBits) {
  constexpr int K = 12;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), unit(0.0f, 1.0f);
  const Thresholds th;
  const float black[3] = {0.0f, 0.0f, 0.0f};
  int used = 0, clamped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const float w_alpha = trial % 2 ? 0.0f : -0.0f;  // both signs of zero
    const Vec3<float> w_rgb{{u(rng), u(rng), u(rng)}};
    const float t_final = 0.01f + 0.99f * unit(rng), w_depth = trial % 3 ? 0.1f * u(rng) : 0.0f;
    ReverseSweep<float> skip = start_sweep(5, 7, t_final, w_rgb, w_alpha, w_depth, black);
    ASSERT_TRUE(skip.outside_zero);
    ReverseSweep<float> divide = skip;
    divide.outside_zero = false;
    for (int i = 0; i < K; ++i) {
      const Splat<float> s = test::random_splat<float>(rng);
      const Vec4<float> cd = test::random_colour_depth<float>(rng);
      float a[kGrad2dWidth], b[kGrad2dWidth];
      std::fill_n(a, kGrad2dWidth, std::nanf(""));
      std::fill_n(b, kGrad2dWidth, std::nanf(""));
      const bool ua = fragment_backward<kGrad2dWidth>(skip, s, cd, th, a);
      const bool ub = fragment_backward<kGrad2dWidth>(divide, s, cd, th, b);
      ASSERT_EQ(ua, ub);
      if (!ua) continue;
      ++used;
      clamped += fragment_at(s, 5.5f, 7.5f, th).clamped;
      for (int e = 0; e < kGrad2dWidth; ++e) {
        EXPECT_FALSE(std::isnan(a[e])) << "trial " << trial << " entry " << e << " not written";
        EXPECT_EQ(std::memcmp(&a[e], &b[e], sizeof(float)), 0) << "trial " << trial << " entry " << e;
      }
      EXPECT_EQ(std::memcmp(&skip.trans, &divide.trans, sizeof(float)), 0);
      EXPECT_EQ(std::memcmp(skip.behind, divide.behind, sizeof skip.behind), 0);
    }
  }
  EXPECT_GT(used, 1000);
  EXPECT_GT(clamped, 50);
}
