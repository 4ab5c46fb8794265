// Point-cloud PLY files: float or double positions, optional uchar colours, round trip, rejections.
#include <gtest/gtest.h>

#include <cmath>

#include "io_fixtures.h"
#include "tilegrad/io/mesh_formats.h"
#include "tilegrad/io/ply_points.h"

using namespace tilegrad;
using namespace tilegrad::io;
using tilegrad::test::Bytes;

TEST(PlyPoints, ReadsFloatPositionsColoursAndIgnoresTheRest) {
  Bytes b;
  b.text(
      "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
      "property float z\nproperty float nx\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
      "property uchar alpha\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n");
  using u8 = std::uint8_t;
  b.le(1.0f).le(2.0f).le(3.0f).le(9.0f);
  b.le(u8(10)).le(u8(20)).le(u8(30)).le(u8(1));
  b.le(-1.0f).le(-2.0f).le(-3.0f).le(9.0f);
  b.le(u8(255)).le(u8(0)).le(u8(7)).le(u8(1));
  test::TempDir dir;
  const PointCloud p = read_points_ply(dir.write("p.ply", b.str()));
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(p.positions, (std::vector<float>{1, 2, 3, -1, -2, -3}));
  EXPECT_EQ(p.colors, (std::vector<std::uint8_t>{10, 20, 30, 255, 0, 7}));
}

TEST(PlyPoints, ReadsBigEndianDoublesWithoutColours) {
  Bytes b;
  b.text(
      "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty double x\nproperty double y\n"
      "property double z\nend_header\n");
  b.be(0.5).be(-1e10).be(2.0);
  const PointCloud p = points_from_ply(read_ply_bytes(b.str(), "be.ply"));
  EXPECT_FALSE(p.has_colors());
  EXPECT_EQ(p.positions, (std::vector<float>{0.5f, -1e10f, 2.0f}));
}

TEST(PlyPoints, RoundTripIsExact) {
  test::TempDir dir;
  PointCloud p;
  p.positions = {1.25f, -0.0f, 3e-38f, 7, 8, 9};
  p.colors = {1, 2, 3, 250, 251, 252};
  write_points_ply(dir.file("rt.ply"), p);
  const PointCloud q = read_points_ply(dir.file("rt.ply"));
  EXPECT_TRUE(std::memcmp(q.positions.data(), p.positions.data(), 6 * sizeof(float)) == 0);
  EXPECT_EQ(q.colors, p.colors);
  p.colors.clear();
  write_points_ply(dir.file("plain.ply"), p);
  EXPECT_FALSE(read_points_ply(dir.file("plain.ply")).has_colors());
  p.positions[4] = std::nanf("");
  EXPECT_THROW(write_points_ply(dir.file("nan.ply"), p), InvalidArgument);
}

TEST(PlyPoints, RejectsBadFiles) {
  const std::string xyz =
      "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n";
  EXPECT_IO_ERROR(points_from_ply(read_ply_bytes(xyz + "property uchar red\nend_header\n0 0 0 1\n0 0 0 1\n", "r.ply")),
                  "r.ply", "need all of red, green and blue (found 1");
  EXPECT_IO_ERROR(
      points_from_ply(read_ply_bytes(xyz + "property float red\nproperty float green\nproperty float blue\nend_header\n"
                                           "0 0 0 1 1 1\n0 0 0 1 1 1\n",
                                     "f.ply")),
      "property 'red' has type float, expected uchar");
  EXPECT_IO_ERROR(points_from_ply(read_ply_bytes(xyz + "end_header\n0 0 0\nnan 0 0\n", "n.ply")), "n.ply",
                  "vertex 1: property 'x' is NaN");
  EXPECT_IO_ERROR(points_from_ply(read_ply_bytes("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                                                 "property float y\nend_header\n0 0\n",
                                                 "z.ply")),
                  "missing vertex property 'z'");
  EXPECT_IO_ERROR(points_from_ply(read_ply_bytes("ply\nformat ascii 1.0\nelement point 0\nend_header\n", "v.ply")),
                  "no 'vertex' element");
}

TEST(PlyPoints, HandBuiltDataIsCheckedBeforeIndexing) {
  // PlyData is a plain struct: the format readers verify column sizes instead of trusting `count`.
  PlyData ply;
  ply.source = "hand";
  PlyElementData v;
  v.name = "vertex";
  v.count = 5;
  for (const char* name : {"x", "y", "z"}) {
    v.names.push_back(name);
    v.columns.push_back(PlyColumn{std::vector<float>{1.0f}, {}});
  }
  ply.elements.push_back(v);
  EXPECT_IO_ERROR(points_from_ply(ply), "hand", "vertex property 'x' holds 1 values for 5 rows");
  ply.elements[0].count = 1;
  PlyElementData face;
  face.name = "face";
  face.count = 1;
  face.names = {"vertex_indices"};
  face.columns.push_back(PlyColumn{std::vector<std::int32_t>{0, 0, 0}, {0, 7}});
  ply.elements.push_back(face);
  EXPECT_IO_ERROR(mesh_from_ply(ply), "list 'vertex_indices' has inconsistent row offsets");
}
