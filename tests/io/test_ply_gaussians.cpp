// 3DGS .ply files: bit-exact round trips for every SH degree, the exact standard layout, files in the
// layouts other tools write, and every rejection.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "io_fixtures.h"
#include "test_support.h"
#include "tilegrad/io/ply_gaussians.h"

using namespace tilegrad;
using namespace tilegrad::io;
using tilegrad::test::Bytes;

namespace {

raster::Gaussians random_gaussians(std::size_t n, int degree, std::uint64_t seed) {
  raster::Gaussians g = raster::Gaussians::allocate(n, degree, Device::Cpu);
  auto fill = [&](Buffer<float>& b, std::uint64_t s) {
    const std::vector<float> v = test::random_floats(b.size(), seed * 7 + s, -3.0f, 3.0f);
    std::copy(v.begin(), v.end(), b.data());
  };
  fill(g.means, 1), fill(g.log_scales, 2), fill(g.quats, 3), fill(g.opacity_logits, 4), fill(g.sh, 5);
  if (n > 0) {  // values whose bits a sloppy conversion would change
    g.means.data()[0] = std::numeric_limits<float>::denorm_min();
    g.means.data()[1] = -0.0f;
    g.sh.data()[0] = std::numeric_limits<float>::max();
  }
  return g;
}

void expect_bitwise_equal(const raster::Gaussians& a, const raster::Gaussians& b) {
  EXPECT_EQ(a.sh_degree, b.sh_degree);
  EXPECT_EQ(a.device(), Device::Cpu);
  EXPECT_TRUE(test::bitwise_equal(a.means.to_vector(), b.means.to_vector()));
  EXPECT_TRUE(test::bitwise_equal(a.log_scales.to_vector(), b.log_scales.to_vector()));
  EXPECT_TRUE(test::bitwise_equal(a.quats.to_vector(), b.quats.to_vector()));
  EXPECT_TRUE(test::bitwise_equal(a.opacity_logits.to_vector(), b.opacity_logits.to_vector()));
  EXPECT_TRUE(test::bitwise_equal(a.sh.to_vector(), b.sh.to_vector()));
}

std::string header(std::size_t n, const std::vector<std::string>& names, const char* format = "binary_little_endian") {
  std::string h = std::string("ply\nformat ") + format + " 1.0\nelement vertex " + std::to_string(n) + "\n";
  for (const std::string& name : names) h += "property float " + name + "\n";
  return h + "end_header\n";
}

std::vector<std::string> gsplat_names(int rest) {  // gsplat's export: no normals
  std::vector<std::string> names = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2"};
  for (int i = 0; i < rest; ++i) names.push_back("f_rest_" + std::to_string(i));
  for (const char* n : {"opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"})
    names.push_back(n);
  return names;
}

// The standard layout of the original trainer: gsplat's plus normals after the position.
std::vector<std::string> standard_names(int rest) {
  std::vector<std::string> names = gsplat_names(rest);
  names.insert(names.begin() + 3, {"nx", "ny", "nz"});
  return names;
}

}  // namespace

TEST(PlyGaussians, RoundTripIsBitExactForEveryDegree) {
  test::TempDir dir;
  for (int degree = 0; degree <= 3; ++degree) {
    const raster::Gaussians g = random_gaussians(37, degree, degree + 1);
    const std::string path = dir.file("scene" + std::to_string(degree) + ".ply");
    write_gaussians_ply(path, g);
    const std::vector<std::string> names = standard_names(gaussians_ply_rest_count(degree));
    EXPECT_EQ(test::file_bytes(path).size(), header(37, names).size() + 37 * names.size() * sizeof(float));
    expect_bitwise_equal(read_gaussians_ply(path), g);
  }
}

TEST(PlyGaussians, EmptySceneRoundTrips) {
  test::TempDir dir;
  write_gaussians_ply(dir.file("empty.ply"), raster::Gaussians::allocate(0, 2, Device::Cpu));
  const raster::Gaussians g = read_gaussians_ply(dir.file("empty.ply"));
  EXPECT_EQ(g.count(), 0u);
  EXPECT_EQ(g.sh_degree, 2);
}

TEST(PlyGaussians, WritesTheStandardLayout) {
  test::TempDir dir;
  const int degree = 3, k = 16;
  raster::Gaussians g = random_gaussians(2, degree, 9);
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < 3; ++c) g.sh.data()[(1 * k + j) * 3 + c] = float(100 * c + j);  // Gaussian 1
  const std::string path = dir.file("layout.ply");
  write_gaussians_ply(path, g);

  const std::string expected_header = header(2, standard_names(45));
  const std::string bytes = test::file_bytes(path);
  EXPECT_EQ(bytes.substr(0, expected_header.size()), expected_header);
  EXPECT_EQ(bytes.size(), expected_header.size() + 2 * 62 * 4);

  // Read back as plain columns: f_rest is channel-major, f_rest[c * 15 + (j - 1)] = coefficient j of channel c.
  const PlyData ply = read_ply(path);
  const PlyElementData& v = ply.elements.at(0);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(v.find("f_dc_" + std::to_string(c))->as_double(1), 100.0 * c);
    for (int j = 1; j < k; ++j)
      EXPECT_EQ(v.find("f_rest_" + std::to_string(c * 15 + j - 1))->as_double(1), 100.0 * c + j);
  }
  EXPECT_EQ(v.find("nx")->as_double(0), 0.0);
  EXPECT_EQ(v.find("opacity")->as_double(1), g.opacity_logits.data()[1]);
  EXPECT_EQ(v.find("rot_0")->as_double(1), g.quats.data()[4]);  // w first
  EXPECT_EQ(v.find("scale_2")->as_double(0), g.log_scales.data()[2]);
}

TEST(PlyGaussians, ReadsGsplatLayoutWithoutNormals) {
  const std::vector<std::string> names = gsplat_names(9);  // degree 1
  Bytes b;
  b.text(header(1, names));
  for (std::size_t i = 0; i < names.size(); ++i) b.le(float(i));
  test::TempDir dir;
  const raster::Gaussians g = read_gaussians_ply(dir.write("gsplat.ply", b.str()));
  ASSERT_EQ(g.count(), 1u);
  EXPECT_EQ(g.sh_degree, 1);
  EXPECT_EQ(g.means.to_vector(), (std::vector<float>{0, 1, 2}));
  // sh [1, 4, 3]: coefficient 0 = f_dc (3, 4, 5); coefficient j of channel c = f_rest[c * 3 + j - 1] = 6 + c * 3 + j
  // - 1.
  EXPECT_EQ(g.sh.to_vector(), (std::vector<float>{3, 4, 5, 6, 9, 12, 7, 10, 13, 8, 11, 14}));
  EXPECT_EQ(g.opacity_logits.to_vector(), std::vector<float>{15});
  EXPECT_EQ(g.log_scales.to_vector(), (std::vector<float>{16, 17, 18}));
  EXPECT_EQ(g.quats.to_vector(), (std::vector<float>{19, 20, 21, 22}));
}

TEST(PlyGaussians, ReadsAnyPropertyOrderDoublesAndAscii) {
  const std::string text =
      "ply\nformat ascii 1.0\nelement vertex 2\nproperty double rot_3\nproperty float filter_3D\n"
      "property double opacity\nproperty float rot_2\nproperty float scale_0\nproperty float z\nproperty float y\n"
      "property float x\nproperty float f_dc_2\nproperty float f_dc_1\nproperty float f_dc_0\nproperty float rot_0\n"
      "property float rot_1\nproperty float scale_2\nproperty float scale_1\nend_header\n"
      "0.5 9 -1 0.25 -2 3 2 1 0.3 0.2 0.1 1 0 -4 -3\n"
      "1 9 2 0 0 6 5 4 0 0 0 0 0 0 0\n";
  const raster::Gaussians g = gaussians_from_ply(read_ply_bytes(text, "order.ply"));
  ASSERT_EQ(g.count(), 2u);
  EXPECT_EQ(g.sh_degree, 0);
  EXPECT_EQ(g.means.to_vector(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(g.quats.to_vector(), (std::vector<float>{1, 0, 0.25f, 0.5f, 0, 0, 0, 1}));
  EXPECT_EQ(g.log_scales.to_vector(), (std::vector<float>{-2, -3, -4, 0, 0, 0}));
  EXPECT_EQ(g.opacity_logits.to_vector(), (std::vector<float>{-1, 2}));
  EXPECT_EQ(g.sh.to_vector(), (std::vector<float>{0.1f, 0.2f, 0.3f, 0, 0, 0}));
}

TEST(PlyGaussians, RejectsBadFiles) {
  const auto ascii_row = [](const std::vector<std::string>& names, const std::string& row) {
    return header(1, names, "ascii") + row + "\n";
  };
  std::vector<std::string> ten = gsplat_names(10);
  std::string row10;
  for (std::size_t i = 0; i < ten.size(); ++i) row10 += "0 ";
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes(ascii_row(ten, row10), "ten.ply")), "ten.ply",
                  "10 f_rest properties", "expected 0, 9, 24 or 45");

  std::vector<std::string> gap = gsplat_names(9);
  gap[6 + 4] = "f_rest_9";  // f_rest_0..3, 9, 5..8
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes(ascii_row(gap, row10.substr(2)), "gap.ply")), "without gaps");

  std::vector<std::string> no_opacity = gsplat_names(0);
  no_opacity.erase(std::find(no_opacity.begin(), no_opacity.end(), "opacity"));
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes(ascii_row(no_opacity, "0 0 0 0 0 0 0 0 0 1 0 0 0"), "o.ply")),
                  "o.ply", "missing vertex property 'opacity'");

  const std::vector<std::string> names = gsplat_names(0);  // 14 properties
  const std::string two_rows =
      header(2, names, "ascii") + "0 0 0 0 0 0 0 0 0 0 1 0 0 0\n" + "0 0 0 0 0 0 0 0 nan 0 1 0 0 0\n";
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes(two_rows, "nan.ply")), "nan.ply",
                  "vertex 1: property 'scale_1' is NaN");
  const std::string inf = header(1, names, "ascii") + "0 0 0 0 0 0 0 0 0 0 -inf 0 0 0\n";
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes(inf, "inf.ply")), "vertex 0: property 'rot_0' is -inf");

  const std::string list_x = "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\nend_header\n1 0\n";
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes(list_x, "l.ply")), "vertex property 'x' is a list");
  EXPECT_IO_ERROR(gaussians_from_ply(read_ply_bytes("ply\nformat ascii 1.0\nend_header\n", "nv.ply")),
                  "no 'vertex' element");
  test::TempDir dir;
  EXPECT_IO_ERROR(read_gaussians_ply(dir.file("none.ply")), "none.ply", "not found");
}

TEST(PlyGaussians, WriterRejectsWhatWouldNotLoadBack) {
  test::TempDir dir;
  raster::Gaussians g = random_gaussians(4, 1, 3);
  g.quats.data()[2 * 4 + 0] = std::nanf("");
  try {
    write_gaussians_ply(dir.file("bad.ply"), g);
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("Gaussian 2: rot_0 is NaN"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.ply")));  // checked before the file is created

  raster::Gaussians colors_only = raster::Gaussians::allocate(3, 0, Device::Cpu);
  colors_only.sh = Buffer<float>();
  colors_only.colors = Buffer<float>::zeros(9, Device::Cpu);
  EXPECT_THROW(write_gaussians_ply(dir.file("c.ply"), colors_only), InvalidArgument);
  EXPECT_IO_ERROR(write_gaussians_ply(dir.file("no/such/folder/x.ply"), random_gaussians(1, 0, 1)),
                  "cannot open for writing");
}
