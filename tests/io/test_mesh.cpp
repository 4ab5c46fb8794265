// Triangle meshes: OBJ, OFF and PLY (faces and triangle strips) parsing, writers, round trips, rejections.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "io_fixtures.h"
#include "tilegrad/io/mesh.h"
#include "tilegrad/io/mesh_formats.h"

using namespace tilegrad;
using namespace tilegrad::io;
using tilegrad::test::Bytes;

namespace {

using Tris = std::vector<std::uint32_t>;

// z component of the normal of triangle t (the meshes below lie in the z = 0 plane).
double normal_z(const TriangleMesh& m, std::size_t t) {
  const auto p = [&](int k) { return &m.vertices[m.triangles[t * 3 + k] * 3]; };
  const double* a = p(0);
  const double* b = p(1);
  const double* c = p(2);
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

TriangleMesh two_triangles() {
  TriangleMesh m;
  m.vertices = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0.1, 1.0 / 3.0, -1e-300};
  m.triangles = {0, 1, 2, 0, 2, 3};
  return m;
}

}  // namespace

TEST(MeshObj, ParsesPolygonsIndexFormsAndNegativeIndices) {
  const std::string text =
      "# a quad and a triangle\n"
      "mtllib x.mtl\no quad\n"
      "v 0 0 0\nv 1 0 0 1.0\nv 1 1 0\nv 0 1 0 0.5 0.5 0.5\n"
      "vt 0 0\nvn 0 0 1\n"
      "f 1/1/1 2/1/1 3//1 4  # fan-triangulated\n"
      "v 2 0 0\n"
      "f -4 -1 -3\n"
      "l 1 2\n";
  const TriangleMesh m = parse_obj(text, "q.obj");
  EXPECT_EQ(m.vertex_count(), 5u);
  EXPECT_EQ(m.vertices[3 * 3 + 1], 1.0);
  EXPECT_EQ(m.triangles, (Tris{0, 1, 2, 0, 2, 3, 1, 4, 2}));
}

TEST(MeshObj, RejectsBadFaces) {
  const std::string v = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  EXPECT_IO_ERROR(parse_obj(v + "f 0 1 2\n", "a.obj"), "a.obj", "line 4", "'0' is not a non-zero integer");
  EXPECT_IO_ERROR(parse_obj(v + "f 1 2 9\n", "a.obj"), "triangle 0: vertex index 8 out of range (3 vertices)");
  EXPECT_IO_ERROR(parse_obj(v + "f -1 -2 -4\n", "a.obj"), "line 4", "relative index -4 points before the first vertex");
  EXPECT_IO_ERROR(parse_obj(v + "\nf 1 2\n", "a.obj"), "line 5", "face with 2 vertices");
  EXPECT_IO_ERROR(parse_obj(v + "f 1 2 3 2\n", "a.obj"), "line 4", "degenerate face (vertex 1 appears twice)");
  EXPECT_IO_ERROR(parse_obj("v 0 0 0\nv 0 nan 0\n", "a.obj"), "vertex 1: coordinate y is NaN");
  EXPECT_IO_ERROR(parse_obj("v 0 0\n", "a.obj"), "line 1", "vertex needs 3 numeric coordinates");
  EXPECT_IO_ERROR(parse_obj(v + "f 1 2 x\n", "a.obj"), "'x' is not a non-zero integer");
}

TEST(MeshOff, ParsesVariantsCommentsAndCountsOnTheHeaderLine) {
  const TriangleMesh m = parse_off("OFF\n# comment\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n", "a.off");
  EXPECT_EQ(m.vertex_count(), 4u);
  EXPECT_EQ(m.triangles, (Tris{0, 1, 2, 0, 2, 3}));
  const TriangleMesh c = parse_off(
      "COFF 4 1 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n1 1 0 0 0 255 255\n"
      "0 1 0 9 9 9 255\n4 0 1 2 3 10 20 30\n",
      "c.off");
  EXPECT_EQ(c.triangles, (Tris{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(parse_off("STCNOFF\n0 0 0\n", "e.off").vertex_count(), 0u);
}

TEST(MeshOff, RejectsBadFiles) {
  EXPECT_IO_ERROR(parse_off("", "a.off"), "a.off", "empty file");
  EXPECT_IO_ERROR(parse_off("4OFF\n0 0 0\n", "a.off"), "not an OFF file");
  EXPECT_IO_ERROR(parse_off("OFF\n3 1\n0 0 0\n1 0 0\n", "a.off"), "unexpected end of file at vertex 2");
  EXPECT_IO_ERROR(parse_off("OFF\n3 1\n0 0 0\n1 0 0\n0 1 0\n3 0 1 5\n", "a.off"), "line 6", "face 0 uses vertex 5");
  EXPECT_IO_ERROR(parse_off("OFF\n3 1\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n", "a.off"), "face with 2 vertices");
  EXPECT_IO_ERROR(parse_off("OFF\n3 1\n0 0 0\n1 0 0\n0 1 0\n", "a.off"), "unexpected end of file at face 0");
  EXPECT_IO_ERROR(parse_off("OFF\n1000000000 0 0\n0 0 0\n", "a.off"), "cannot fit in the");
  EXPECT_IO_ERROR(parse_off("OFF\n-3 1 0\n", "a.off"), "line 2", "non-negative integers");
  EXPECT_IO_ERROR(parse_off("OFF\n1 0\n0 inf 0\n", "a.off"), "vertex 0: coordinate y is inf");
}

TEST(MeshPly, ReadsFacesWithEitherListName) {
  const std::string text =
      "ply\nformat ascii 1.0\nelement vertex 4\nproperty double x\nproperty double y\n"
      "property double z\nproperty float nx\nelement face 1\nproperty list uchar uint vertex_index\n"
      "end_header\n0 0 0 1\n1 0 0 1\n1 1 0 1\n0 1 0 1\n4 0 1 2 3\n";
  const TriangleMesh m = mesh_from_ply(read_ply_bytes(text, "a.ply"));
  EXPECT_EQ(m.vertices, (std::vector<double>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(m.triangles, (Tris{0, 1, 2, 0, 2, 3}));
}

TEST(MeshPly, DecodesTriangleStripsWithRestartsAndConsistentOrientation) {
  // A 2 x 4 grid of vertices in the z = 0 plane: bottom row 0..3, top row 4..7. The strip 0 4 1 5 2 6 3 7 covers
  // it with 6 triangles; a restart (-1) then a separate strip with a repeated index (a stitching degenerate).
  Bytes b;
  b.text(
      "ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
      "property float z\nelement tristrips 1\nproperty list int int vertex_indices\nend_header\n");
  for (int row = 0; row < 2; ++row)
    for (int col = 0; col < 4; ++col) b.le(float(col)).le(float(row)).le(0.0f);
  const std::vector<std::int32_t> strip = {0, 4, 1, 5, 2, 6, 3, 7, -1, 0, 1, 1, 4};
  b.le(std::int32_t(strip.size()));
  for (std::int32_t s : strip) b.le(s);
  const TriangleMesh m = mesh_from_ply(read_ply_bytes(b.str(), "strip.ply", mesh_ply_filter()));
  ASSERT_EQ(m.triangle_count(), 6u);  // both triangles of "0 1 1 4" repeat an index
  EXPECT_EQ((Tris(m.triangles.begin(), m.triangles.begin() + 6)), (Tris{0, 4, 1, 1, 4, 5}));
  for (std::size_t t = 0; t < m.triangle_count(); ++t) EXPECT_LT(normal_z(m, t), 0.0) << "triangle " << t;
}

TEST(MeshPly, RejectsBadFiles) {
  const std::string v =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n";
  // The three vertices above, then one more element declared by `element` with the data row `row`.
  const auto mesh_with = [&](const std::string& element, const std::string& row) {
    return mesh_from_ply(read_ply_bytes(v + element + "end_header\n0 0 0\n1 0 0\n0 1 0\n" + row, "f.ply"));
  };
  const std::string int_faces = "element face 1\nproperty list uchar int vertex_indices\n";
  EXPECT_IO_ERROR(mesh_with("element face 1\nproperty list uchar float vertex_indices\n", "3 0 1 2\n"), "f.ply",
                  "holds float values, expected integer vertex indices");
  EXPECT_IO_ERROR(mesh_with(int_faces, "3 0 1 3\n"), "element 'face', row 0: vertex index 3 out of range (3 vertices)");
  EXPECT_IO_ERROR(mesh_with(int_faces, "3 0 1 -2\n"), "vertex index -2 out of range");
  EXPECT_IO_ERROR(mesh_with("element face 1\nproperty list uchar int indices\n", "3 0 1 2\n"),
                  "element 'face' has no vertex index list ('vertex_indices' or 'vertex_index')");
  EXPECT_IO_ERROR(mesh_with("", ""), "no 'face' or 'tristrips' element");
  EXPECT_IO_ERROR(mesh_with("element tristrips 1\nproperty list int int vertex_indices\n", "4 0 1 -3 2\n"),
                  "element 'tristrips', row 0: vertex index -3 out of range");
}

TEST(Mesh, WritersRoundTripExactly) {
  test::TempDir dir;
  const TriangleMesh m = two_triangles();
  write_obj(dir.file("m.obj"), m);
  write_ply(dir.file("m.ply"), m);
  write_ply(dir.file("ascii.PLY"), m, false);
  for (const char* name : {"m.obj", "m.ply", "ascii.PLY"}) {
    const TriangleMesh r = read_mesh(dir.file(name));
    EXPECT_EQ(r.vertices, m.vertices) << name;
    EXPECT_EQ(r.triangles, m.triangles) << name;
  }
  EXPECT_EQ(read_ply_header(dir.file("ascii.PLY")).format, PlyFormat::Ascii);
  dir.write("m.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
  EXPECT_EQ(read_mesh(dir.file("m.off")).triangle_count(), 1u);
}

TEST(Mesh, ReadAndWriteErrors) {
  test::TempDir dir;
  dir.write("m.stl", "solid");
  EXPECT_IO_ERROR(read_mesh(dir.file("m.stl")), "m.stl", "unknown mesh format '.stl'");
  EXPECT_IO_ERROR(read_mesh(dir.file("none.obj")), "none.obj", "not found");
  TriangleMesh bad = two_triangles();
  bad.triangles[4] = 7;
  EXPECT_THROW(write_obj(dir.file("bad.obj"), bad), InvalidArgument);
  bad.triangles[4] = 0;  // repeats vertex 0
  EXPECT_THROW(write_ply(dir.file("bad.ply"), bad), InvalidArgument);
  TriangleMesh ragged = two_triangles();
  ragged.vertices.pop_back();
  EXPECT_IO_ERROR(validate_mesh(ragged, "r"), "vertex array size 11 is not a multiple of 3");
}
