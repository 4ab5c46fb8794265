// Per-element primitives of the path tracer: ray-sphere intersection, normals, cone sampling and its pdf,
// the silhouette circle; dual derivatives against central differences in double (rel <= 1e-8) and
// geometric identities.
#include <gtest/gtest.h>

#include "fd_check.h"
#include "tilegrad/pathtracer/sampling.h"
#include "tilegrad/pathtracer/edge_curves.h"

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

const Vec3<double> kOrigin{{0.1, -0.2, -4.0}};
const Vec3<double> kDir = normalized(Vec3<double>{{0.05, 0.03, 1.0}});

// (centre, radius) -> hit distance t.
struct HitDistance {
  template <class S>
  Vec<S, 1> operator()(const Vec<S, 4>& p) const {
    S t;
    const Vec3<S> c{{p[0], p[1], p[2]}};
    EXPECT_TRUE(ray_sphere(kOrigin, kDir, c, p[3], 0.0, 1e30, t));
    return {{t}};
  }
};
// (origin, direction angles, centre, radius) -> hit point and normal.
struct HitPointNormal {
  template <class S>
  Vec<S, 6> operator()(const Vec<S, 8>& p) const {
    const Vec3<S> o{{p[0], p[1], p[2]}};
    const Vec3<S> d = normalized(Vec3<S>{{p[3], p[4], S(1.0)}});
    const Vec3<S> c{{p[5], p[6], S(0.3)}};
    S t;
    EXPECT_TRUE(ray_sphere(o, d, c, p[7], 0.0, 1e30, t));
    const Vec3<S> x = ray_point(o, d, t);
    const Vec3<S> n = sphere_normal(x, c, p[7]);
    return {{x[0], x[1], x[2], n[0], n[1], n[2]}};
  }
};
// (point, light centre, light radius) -> sampled direction and 1 / pdf, for fixed random numbers.
struct ConeDirection {
  double u, v;
  template <class S>
  Vec<S, 4> operator()(const Vec<S, 7>& p) const {
    const Vec3<S> x{{p[0], p[1], p[2]}}, c{{p[3], p[4], p[5]}};
    const ConeSample<S> s = sample_sphere_cone(x, c, p[6], u, v);
    EXPECT_TRUE(s.valid);
    return {{s.direction[0], s.direction[1], s.direction[2], s.inv_pdf}};
  }
};
struct ConePdf {
  template <class S>
  Vec<S, 1> operator()(const Vec<S, 7>& p) const {
    return {{sphere_cone_pdf(Vec3<S>{{p[0], p[1], p[2]}}, Vec3<S>{{p[3], p[4], p[5]}}, p[6])}};
  }
};
struct CosineDirection {
  double u, v;
  template <class S>
  Vec<S, 3> operator()(const Vec<S, 2>& p) const {
    const Vec3<S> n = normalized(Vec3<S>{{p[0], p[1], S(-1.0)}});
    return sample_cosine_hemisphere(n, u, v);
  }
};

}  // namespace

TEST(Primitives, RaySphereDistanceDerivatives) {
  test::expect_jacobian_matches_fd(HitDistance{}, Vec<double, 4>{{0.2, 0.1, 0.5, 1.3}}, 1e-8);
  // A nearly grazing ray (still away from the tangent).
  test::expect_jacobian_matches_fd(HitDistance{}, Vec<double, 4>{{0.9, 0.4, 0.5, 1.0}}, 1e-8);
}

TEST(Primitives, HitPointAndNormalDerivatives) {
  test::expect_jacobian_matches_fd(HitPointNormal{}, Vec<double, 8>{{0.0, 0.1, -5.0, 0.1, -0.05, 0.2, 0.0, 1.1}},
                                   1e-8);
}

TEST(Primitives, RaySphereStableRootsAndMisses) {
  double t = 0;
  // A far sphere seen from a point just above its surface: the near root without cancellation.
  const Vec3<double> o{{0.0, 1.0 + 1e-3, 0.0}}, down{{0.0, -1.0, 0.0}};
  ASSERT_TRUE(ray_sphere(o, down, Vec3<double>{{0.0, -999.0, 0.0}}, 1000.0, 0.0, 1e30, t));
  EXPECT_NEAR(t, 1e-3, 1e-12);
  float tf = 0;
  ASSERT_TRUE(ray_sphere(Vec3<float>{{0.0f, 1.001f, 0.0f}}, Vec3<float>{{0.0f, -1.0f, 0.0f}},
                         Vec3<float>{{0.0f, -999.0f, 0.0f}}, 1000.0f, 0.0f, 1e30f, tf));
  EXPECT_NEAR(tf, 1e-3f, 1e-4f);  // float coordinates near 1000 carry 6e-5 of rounding
  // Misses, hits behind the origin, and from inside (the far root).
  EXPECT_FALSE(ray_sphere(kOrigin, kDir, Vec3<double>{{3.0, 0.0, 0.0}}, 1.0, 0.0, 1e30, t));
  EXPECT_FALSE(ray_sphere(kOrigin, kDir * -1.0, Vec3<double>{{0.0, 0.0, 0.0}}, 1.0, 0.0, 1e30, t));
  ASSERT_TRUE(ray_sphere(Vec3<double>{{0, 0, 0}}, Vec3<double>{{0, 0, 1}}, Vec3<double>{{0, 0, 0.5}}, 1.0, 0.0, 1e30, t));
  EXPECT_NEAR(t, 1.5, 1e-14);
  // tmax culls.
  EXPECT_FALSE(ray_sphere(kOrigin, kDir, Vec3<double>{{0.0, 0.0, 0.0}}, 1.0, 0.0, 2.0, t));
}

TEST(Primitives, NormalIsUnitAndOutward) {
  const Vec3<double> c{{0.2, 0.1, 0.5}};
  double t;
  ASSERT_TRUE(ray_sphere(kOrigin, kDir, c, 1.3, 0.0, 1e30, t));
  const Vec3<double> x = ray_point(kOrigin, kDir, t);
  const Vec3<double> n = sphere_normal(x, c, 1.3);
  EXPECT_NEAR(norm(n), 1.0, 1e-12);
  EXPECT_LT(dot(n, kDir), 0.0);  // the first hit faces the ray
}

TEST(Primitives, ConeSamplingDerivatives) {
  const Vec<double, 7> p{{0.1, -0.3, 0.2, 1.5, 2.0, -0.5, 0.6}};
  for (auto [u, v] : {std::pair{0.3, 0.7}, std::pair{0.95, 0.1}, std::pair{0.02, 0.5}})
    test::expect_jacobian_matches_fd(ConeDirection{u, v}, p, 1e-8);
  test::expect_jacobian_matches_fd(ConePdf{}, p, 1e-8);
  // A small, far light: 1 - cos(theta_max) without cancellation.
  test::expect_jacobian_matches_fd(ConePdf{}, Vec<double, 7>{{0, 0, 0, 30, 40, 0, 0.01}}, 1e-8);
}

TEST(Primitives, ConeSamplesHitTheLightAndThePdfIsTheConeSolidAngle) {
  const Vec3<double> x{{0.1, -0.3, 0.2}}, c{{1.5, 2.0, -0.5}};
  const double r = 0.6;
  const double d = norm(c - x);
  const double solid_angle = 2 * kPi * (1 - std::sqrt(1 - r * r / (d * d)));
  EXPECT_NEAR(1.0 / sphere_cone_pdf(x, c, r), solid_angle, 1e-12);
  for (int i = 0; i < 200; ++i) {
    const double u = unit_from_bits(hash_u32(2 * i)), v = unit_from_bits(hash_u32(2 * i + 1));
    const ConeSample<double> s = sample_sphere_cone(x, c, r, u, v);
    ASSERT_TRUE(s.valid);
    EXPECT_NEAR(norm(s.direction), 1.0, 1e-12);
    EXPECT_NEAR(s.inv_pdf, solid_angle, 1e-12);
    double t;
    EXPECT_TRUE(ray_sphere(x, s.direction, c, r + 1e-9, 0.0, 1e30, t)) << "sample " << i;
  }
  EXPECT_FALSE(sample_sphere_cone(c, c, r, 0.5, 0.5).valid);
  EXPECT_EQ(sphere_cone_pdf(c, c, r), 0.0);
}

TEST(Primitives, CosineSamplingIsSmoothAndInTheHemisphere) {
  test::expect_jacobian_matches_fd(CosineDirection{0.4, 0.8}, Vec<double, 2>{{0.3, -0.2}}, 1e-8);
  const Vec3<double> n = normalized(Vec3<double>{{0.3, -0.2, -1.0}});
  for (int i = 0; i < 100; ++i) {
    const Vec3<double> w = sample_cosine_hemisphere(n, double(unit_from_bits(hash_u32(i))),
                                                    double(unit_from_bits(hash_u32(i + 1000))));
    EXPECT_NEAR(norm(w), 1.0, 1e-12);
    EXPECT_GT(dot(w, n), 0.0);
  }
}

TEST(Primitives, FrameIsOrthonormalEverywhere) {
  for (int i = 0; i < 1000; ++i) {
    const double z = 2 * unit_from_bits(hash_u32(i)) - 1, phi = 2 * kPi * unit_from_bits(hash_u32(i + 7777));
    Vec3<double> n{{std::sqrt(1 - z * z) * std::cos(phi), std::sqrt(1 - z * z) * std::sin(phi), z}};
    if (i == 0) n = normalized(Vec3<double>{{1, 2, 3}});  // the frame's own axis
    Vec3<double> e1, e2;
    orthonormal_frame(n, e1, e2);
    EXPECT_NEAR(norm(e1), 1.0, 1e-9);
    EXPECT_NEAR(norm(e2), 1.0, 1e-9);
    EXPECT_NEAR(dot(e1, n), 0.0, 1e-9);
    EXPECT_NEAR(dot(e2, n), 0.0, 1e-9);
    EXPECT_NEAR(dot(cross(e1, e2), n), 1.0, 1e-9);
  }
}

TEST(Primitives, SilhouettePointsAreTangentAndOnTheImplicitEdge) {
  CameraT<double> cam;
  cam.width = cam.height = 100;
  cam.fx = cam.fy = 120;
  cam.cx = cam.cy = 50;
  cam.position = Vec3<double>{{0.2, -0.1, -6.0}};
  const Vec3<double> c{{0.4, 0.3, 0.5}};
  const double r = 1.2;
  for (int i = 0; i < 16; ++i) {
    const double phi = 2 * kPi * i / 16.0;
    const Vec3<double> P = silhouette_point(c, r, cam.position, phi);
    EXPECT_NEAR(norm(P - c), r, 1e-12);
    EXPECT_NEAR(dot(P - c, P - cam.position), 0.0, 1e-12);  // the view ray is tangent at P
    const Vec2<double> x = project_camera(cam, to_camera(cam, P));
    EXPECT_NEAR(silhouette_function(cam, x[0], x[1], c, r), 0.0, 1e-10);
    // Inside is positive: towards the projected centre.
    const Vec2<double> xc = project_camera(cam, to_camera(cam, c));
    const Vec2<double> in = x + (xc - x) * 0.01;
    EXPECT_GT(silhouette_function(cam, in[0], in[1], c, r), 0.0);
  }
}

TEST(Primitives, IntersectionCircleLiesOnBothSpheresAndIsTheVisibilityEdge) {
  const Vec3<double> ca{{-0.4, 0.0, 0.0}}, cb{{0.5, 0.1, -0.3}};
  const double ra = 1.0, rb = 0.8;
  const IntersectionCircle<double> k = intersection_circle(ca, ra, cb, rb);
  ASSERT_TRUE(k.valid);
  CameraT<double> cam;
  cam.width = cam.height = 100;
  cam.fx = cam.fy = 120;
  cam.cx = cam.cy = 50;
  cam.position = Vec3<double>{{0.0, 0.2, -6.0}};
  int front = 0;
  for (int i = 0; i < 32; ++i) {
    const Vec3<double> P = circle_point(k.center, k.axis, k.radius, 2 * kPi * i / 32.0);
    EXPECT_NEAR(norm(P - ca), ra, 1e-12);
    EXPECT_NEAR(norm(P - cb), rb, 1e-12);
    const Vec2<double> x = project_camera(cam, to_camera(cam, P));
    // Where P is the first hit of both spheres, both depths agree there: h = t_b - t_a = 0.
    double ta, tb;
    const Vec3<double> d = camera_direction(cam, x[0], x[1]);
    ray_sphere(cam.position, d, ca, ra, 0.0, 1e30, ta);
    ray_sphere(cam.position, d, cb, rb, 0.0, 1e30, tb);
    if (std::fabs(ta - norm(P - cam.position)) < 1e-9 && std::fabs(tb - norm(P - cam.position)) < 1e-9) {
      ++front;
      EXPECT_NEAR(intersection_function(cam, x[0], x[1], ca, ra, cb, rb), 0.0, 1e-9);
    }
  }
  EXPECT_GT(front, 4);  // part of the circle faces the camera
  EXPECT_FALSE(intersection_circle(ca, ra, Vec3<double>{{5.0, 0.0, 0.0}}, rb).valid);  // apart
  EXPECT_FALSE(intersection_circle(ca, ra, ca, 0.5).valid);                             // one inside the other
}
