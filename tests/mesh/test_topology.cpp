// Mesh connectivity and generators: edges, diamonds, boundary loops, orientation, manifold checks, cutting a
// closed mesh into a disk, and the Tutte embedding.
#include <gtest/gtest.h>

#include <cmath>

#include "mesh_test_util.h"
#include "tilegrad/core/error.h"
#include "tilegrad/mesh/cut.h"
#include "tilegrad/mesh/generate.h"
#include "tilegrad/mesh/geometry.h"
#include "tilegrad/mesh/topology.h"
#include "tilegrad/mesh/tutte.h"

using namespace tilegrad;
using namespace tilegrad::mesh;

TEST(Topology, GridCountsAndBoundary) {
  const TriangleMesh g = grid(5, 3);
  EXPECT_EQ(g.vertex_count(), 24u);
  EXPECT_EQ(g.triangle_count(), 30u);
  const Topology t = build_topology(g);
  EXPECT_TRUE(t.is_manifold());
  EXPECT_EQ(t.edge_count(), 5u * 4 + 6u * 3 + 15u);  // horizontal, vertical, diagonals
  EXPECT_EQ(t.diamonds.size() / 4, t.edge_count() - 16);  // every edge but the 16 boundary ones
  ASSERT_EQ(t.boundary_loops.size(), 1u);
  EXPECT_EQ(t.boundary_loops[0].size(), 16u);
  EXPECT_EQ(t.euler_characteristic(), 1);
  EXPECT_NO_THROW(require_disk(t, "test"));
  EXPECT_THROW(require_closed_genus0(t, "test"), InvalidArgument);
}

TEST(Topology, DiamondsAreOrientedLikeTheirTriangles) {
  const TriangleMesh g = developable_patch(4, 4);
  const Topology t = build_topology(g);
  for (std::size_t i = 0; i < t.diamonds.size() / 4; ++i) {
    const std::uint32_t* d = &t.diamonds[4 * i];
    auto has = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
      for (std::size_t f = 0; f < g.triangle_count(); ++f)
        for (int k = 0; k < 3; ++k)
          if (g.triangles[3 * f + k] == a && g.triangles[3 * f + (k + 1) % 3] == b &&
              g.triangles[3 * f + (k + 2) % 3] == c)
            return true;
      return false;
    };
    EXPECT_TRUE(has(d[0], d[1], d[2]));
    EXPECT_TRUE(has(d[1], d[0], d[3]));
  }
}

TEST(Topology, IcosphereIsClosedGenusZeroAndOutwardOriented) {
  const TriangleMesh s = icosphere(2);
  EXPECT_EQ(s.vertex_count(), 162u);
  const Topology t = build_topology(s);
  EXPECT_NO_THROW(require_closed_genus0(t, "test"));
  EXPECT_EQ(t.diamonds.size() / 4, t.edge_count());
  EXPECT_EQ(count_inverted_sphere(s.vertices, s.triangles), 0u);
  EXPECT_NEAR(total_area(s), 4 * M_PI, 0.05 * 4 * M_PI);  // inscribed: a little less than the sphere
}

TEST(Topology, ReportsBrokenInput) {
  TriangleMesh m = grid(1, 1);
  m.triangles.push_back(0);
  m.triangles.push_back(1);
  m.triangles.push_back(7);
  EXPECT_THROW(build_topology(m), InvalidArgument);  // index out of range
  m = grid(1, 1);
  m.vertices.insert(m.vertices.end(), {0.5, 0.5, 1.0});
  m.triangles.insert(m.triangles.end(), {0, 3, 4});  // a third triangle on the diagonal (0, 3)
  const Topology t = build_topology(m);
  EXPECT_EQ(t.non_manifold_edges, 1u);
  try {
    require_manifold(t, "smooth");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("smooth: the mesh has 1 non-manifold edges"), std::string::npos) << e.what();
  }
}

TEST(Topology, CutToDiskGivesADiskOfTheRequestedSize) {
  const TriangleMesh s = test::bumpy_sphere(3, 0.02, 9);
  const Submesh cut = cut_to_disk(s, 0.4);
  const Topology t = build_topology(cut.mesh);
  EXPECT_NO_THROW(require_disk(t, "test"));
  const double share = total_area(cut.mesh) / total_area(s);
  EXPECT_GT(share, 0.39);
  EXPECT_LT(share, 0.6);
  for (std::size_t v = 0; v < cut.vertex_map.size(); ++v)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(cut.mesh.vertices[3 * v + c], s.vertices[3 * cut.vertex_map[v] + c]);
}

TEST(Topology, TutteEmbeddingHasNoInvertedTriangles) {
  const Submesh cut = cut_to_disk(test::bumpy_sphere(3, 0.03, 4), 0.5);
  const Topology t = build_topology(cut.mesh);
  const auto uv = tutte_embedding(cut.mesh, t.boundary_loops[0]);
  EXPECT_EQ(count_inverted_planar(uv, cut.mesh.triangles), 0u);
  for (std::uint32_t v : t.boundary_loops[0]) EXPECT_NEAR(std::hypot(uv[2 * v], uv[2 * v + 1]), 1.0, 1e-12);
  // Interior vertices sit at the average of their neighbours.
  std::vector<double> sum(uv.size(), 0.0), count(uv.size() / 2, 0.0);
  for (std::size_t e = 0; e < t.edge_count(); ++e) {
    const std::uint32_t a = t.edges[2 * e], b = t.edges[2 * e + 1];
    for (int c = 0; c < 2; ++c) {
      sum[2 * a + c] += uv[2 * b + c];
      sum[2 * b + c] += uv[2 * a + c];
    }
    count[a] += 1;
    count[b] += 1;
  }
  std::vector<char> on_boundary(count.size(), 0);
  for (std::uint32_t v : t.boundary_loops[0]) on_boundary[v] = 1;
  for (std::size_t v = 0; v < count.size(); ++v) {
    if (on_boundary[v]) continue;
    for (int c = 0; c < 2; ++c) EXPECT_NEAR(uv[2 * v + c], sum[2 * v + c] / count[v], 1e-9);
  }
}
