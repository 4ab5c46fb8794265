// Generic PLY reader: header, every scalar type in all three formats, lists, filtering, and malformed input.
#include <gtest/gtest.h>

#include <cmath>

#include "io_fixtures.h"
#include "tilegrad/io/ply.h"

using namespace tilegrad;
using namespace tilegrad::io;
using tilegrad::test::Bytes;

namespace {

// One element with a property of every type (both spellings) and a list, two rows.
const char* kAllTypesHeader =
    "property char a\nproperty uint8 b\nproperty short c\nproperty ushort d\n"
    "property int32 e\nproperty uint f\nproperty float32 g\nproperty double h\n"
    "property list uchar int idx\n";

template <class T>
std::vector<T> values(const PlyElementData& e, const char* name) {
  const PlyColumn* c = e.find(name);
  EXPECT_NE(c, nullptr) << name;
  if (!c) return {};
  const auto* v = c->get_if<T>();
  EXPECT_NE(v, nullptr) << name << " has another type: " << ply_type_name(c->type());
  return v ? *v : std::vector<T>{};
}

void expect_all_types(const PlyData& ply) {
  const PlyElementData* e = ply.find("thing");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->count, 2u);
  EXPECT_EQ(values<std::int8_t>(*e, "a"), (std::vector<std::int8_t>{-7, 127}));
  EXPECT_EQ(values<std::uint8_t>(*e, "b"), (std::vector<std::uint8_t>{200, 0}));
  EXPECT_EQ(values<std::int16_t>(*e, "c"), (std::vector<std::int16_t>{-2, 32767}));
  EXPECT_EQ(values<std::uint16_t>(*e, "d"), (std::vector<std::uint16_t>{65535, 1}));
  EXPECT_EQ(values<std::int32_t>(*e, "e"), (std::vector<std::int32_t>{-123456, 7}));
  EXPECT_EQ(values<std::uint32_t>(*e, "f"), (std::vector<std::uint32_t>{4000000000u, 3}));
  EXPECT_EQ(values<float>(*e, "g"), (std::vector<float>{1.5f, -0.25f}));
  EXPECT_EQ(values<double>(*e, "h"), (std::vector<double>{-2.25, 1e-300}));
  const PlyColumn* idx = e->find("idx");
  ASSERT_NE(idx, nullptr);
  EXPECT_TRUE(idx->is_list());
  EXPECT_EQ(idx->offsets, (std::vector<std::uint64_t>{0, 3, 3}));  // the second row's list is empty
  EXPECT_EQ(values<std::int32_t>(*e, "idx"), (std::vector<std::int32_t>{4, -1, 9}));
}

std::string binary_all_types(bool big) {
  Bytes b;
  b.text(std::string("ply\nformat ") + (big ? "binary_big_endian" : "binary_little_endian") +
         " 1.0\nelement thing 2\n" + kAllTypesHeader + "end_header\n");
  const auto put = [&](auto v) { big ? b.be(v) : b.le(v); };
  put(std::int8_t(-7)), put(std::uint8_t(200)), put(std::int16_t(-2)), put(std::uint16_t(65535));
  put(std::int32_t(-123456)), put(std::uint32_t(4000000000u)), put(1.5f), put(-2.25);
  put(std::uint8_t(3)), put(std::int32_t(4)), put(std::int32_t(-1)), put(std::int32_t(9));
  put(std::int8_t(127)), put(std::uint8_t(0)), put(std::int16_t(32767)), put(std::uint16_t(1));
  put(std::int32_t(7)), put(std::uint32_t(3)), put(-0.25f), put(1e-300);
  put(std::uint8_t(0));
  return b.str();
}

}  // namespace

TEST(Ply, AsciiHeaderAndAllTypes) {
  const std::string text = std::string("ply\r\nformat ascii 1.0\r\ncomment made by hand\r\nobj_info scanner 3\r\n") +
                           "element thing 2\n" + kAllTypesHeader + "end_header\n" +
                           "-7 200 -2 65535 -123456 4000000000 1.5 -2.25 3 4 -1 9\n"
                           "127 0 32767 1 7 3 -0.25 1e-300 0\n";
  const PlyData ply = read_ply_bytes(text, "hand.ply");
  EXPECT_EQ(ply.source, "hand.ply");
  EXPECT_EQ(ply.header.format, PlyFormat::Ascii);
  EXPECT_EQ(ply.header.comments, std::vector<std::string>{"made by hand"});
  EXPECT_EQ(ply.header.obj_info, std::vector<std::string>{"scanner 3"});
  ASSERT_EQ(ply.header.elements.size(), 1u);
  const PlyElement& e = ply.header.elements[0];
  ASSERT_EQ(e.properties.size(), 9u);
  EXPECT_EQ(e.properties[1].type, PlyType::Uint8);    // "uint8" alias
  EXPECT_EQ(e.properties[6].type, PlyType::Float32);  // "float32" alias
  EXPECT_TRUE(e.properties[8].is_list);
  EXPECT_EQ(e.properties[8].count_type, PlyType::Uint8);
  EXPECT_EQ(e.properties[8].type, PlyType::Int32);
  expect_all_types(ply);
}

TEST(Ply, BinaryBothByteOrders) {
  expect_all_types(read_ply_bytes(binary_all_types(false), "le.ply"));
  expect_all_types(read_ply_bytes(binary_all_types(true), "be.ply"));
}

TEST(Ply, FilterKeepsOnlyRequestedProperties) {
  const PlyFilter keep = [](const PlyElement&, const PlyProperty& p) { return p.name == "g" || p.name == "idx"; };
  for (bool big : {false, true}) {
    const PlyData ply = read_ply_bytes(binary_all_types(big), "f.ply", keep);
    const PlyElementData& e = ply.elements.at(0);
    EXPECT_EQ(e.names, (std::vector<std::string>{"g", "idx"}));
    EXPECT_EQ(values<float>(e, "g"), (std::vector<float>{1.5f, -0.25f}));
    EXPECT_EQ(values<std::int32_t>(e, "idx"), (std::vector<std::int32_t>{4, -1, 9}));
    // Skipping the list instead.
    const PlyData only_a = read_ply_bytes(binary_all_types(big), "f.ply",
                                          [](const PlyElement&, const PlyProperty& p) { return p.name == "a"; });
    EXPECT_EQ(values<std::int8_t>(only_a.elements.at(0), "a"), (std::vector<std::int8_t>{-7, 127}));
    EXPECT_EQ(only_a.elements.at(0).columns.size(), 1u);
  }
}

TEST(Ply, ReadsFilesAndHeaders) {
  test::TempDir dir;
  const std::string path = dir.write("a.ply", binary_all_types(false));
  expect_all_types(read_ply(path));
  const PlyHeader h = read_ply_header(path);
  EXPECT_EQ(h.format, PlyFormat::BinaryLittleEndian);
  ASSERT_NE(h.find("thing"), nullptr);
  EXPECT_NE(h.find("thing")->find("idx"), nullptr);
  EXPECT_EQ(h.find("other"), nullptr);
  EXPECT_IO_ERROR(read_ply(dir.file("missing.ply")), "missing.ply", "not found");
  EXPECT_IO_ERROR(read_ply(dir.path()), "is a directory");
}

TEST(Ply, NanIsReadAsIs) {
  const PlyData ply =
      read_ply_bytes("ply\nformat ascii 1.0\nelement v 1\nproperty float x\nend_header\nnan\n", "n.ply");
  EXPECT_TRUE(std::isnan(ply.elements[0].columns[0].as_double(0)));
}

TEST(Ply, MalformedHeaders) {
  const std::string fmt = "ply\nformat ascii 1.0\n";
  EXPECT_IO_ERROR(read_ply_bytes("", "e.ply"), "e.ply", "empty file");
  EXPECT_IO_ERROR(read_ply_bytes("plx\n", "m.ply"), "m.ply", "not a PLY file");
  EXPECT_IO_ERROR(read_ply_bytes("ply\nelement v 1\nend_header\n", "f.ply"), "'element' before the 'format'");
  EXPECT_IO_ERROR(read_ply_bytes("ply\nend_header\n", "f.ply"), "no 'format' line");
  EXPECT_IO_ERROR(read_ply_bytes("ply\nformat binary_middle_endian 1.0\n", "f.ply"), "header line 2", "unknown format");
  EXPECT_IO_ERROR(read_ply_bytes("ply\nformat ascii 2.0\n", "f.ply"), "unsupported PLY version");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "format ascii 1.0\n", "f.ply"), "a second 'format'");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element v 1\nproperty flt x\nend_header\n", "f.ply"), "header line 4",
                  "unknown property type 'flt'");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "property float x\nend_header\n", "f.ply"), "'property' before any 'element'");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element f 1\nproperty list float int i\nend_header\n", "f.ply"),
                  "length type must be an integer");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element f 1\nproperty list uchar i\nend_header\n", "f.ply"),
                  "expected 'property list");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element v -5\nend_header\n", "f.ply"), "count '-5' is not a non-negative");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element v 99999999999999999999999\nend_header\n", "f.ply"),
                  "is not a non-negative integer");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element v 1\nelement v 2\n", "f.ply"), "'v' declared twice");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element v 1\nproperty float x\nproperty float x\n", "f.ply"),
                  "property 'x' declared twice");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "element v 1\nproperty float x\n", "f.ply"), "no 'end_header'");
  EXPECT_IO_ERROR(read_ply_bytes(fmt + "elephant\n", "f.ply"), "unknown keyword 'elephant'");
}

TEST(Ply, CountsAreCheckedAgainstTheFileSize) {
  // A billion-row element in a tiny file is refused before anything is allocated for it.
  const std::string binary =
      "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\nproperty float x\n"
      "end_header\n" +
      std::string(16, '\0');
  EXPECT_IO_ERROR(read_ply_bytes(binary, "big.ply"), "big.ply", "declares 1000000000 rows", "only 16 bytes");
  const std::string ascii =
      "ply\nformat ascii 1.0\nelement vertex 18446744073709551615\nproperty float x\n"
      "end_header\n1 2 3\n";
  EXPECT_IO_ERROR(read_ply_bytes(ascii, "big.ply"), "declares 18446744073709551615 rows");
  // A truncated binary file: 3 rows declared, 2 present.
  Bytes t;
  t.text("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nend_header\n").le(1.0f).le(2.0f);
  EXPECT_IO_ERROR(read_ply_bytes(t.str(), "t.ply"), "t.ply", "element 'vertex' declares 3 rows");
}

TEST(Ply, ListLengthsThatDoNotFit) {
  const std::string header =
      "ply\nformat binary_little_endian 1.0\nelement face 2\nproperty list int int i\nend_header\n";
  Bytes huge;
  huge.text(header).le(std::int32_t(1000000)).le(std::int32_t(1)).le(std::int32_t(0));
  EXPECT_IO_ERROR(read_ply_bytes(huge.str(), "l.ply"), "element 'face', row 0, property 'i'",
                  "list length 1000000 does not fit");
  Bytes negative;
  negative.text(header).le(std::int32_t(-1)).le(std::int32_t(0));
  EXPECT_IO_ERROR(read_ply_bytes(negative.str(), "l.ply"), "row 0", "negative list length -1");
  Bytes second_row_cut;
  second_row_cut.text(header).le(std::int32_t(1)).le(std::int32_t(5)).le(std::int16_t(0));
  EXPECT_IO_ERROR(read_ply_bytes(second_row_cut.str(), "l.ply"), "row 1", "end of file");
  const std::string ascii = "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int i\nend_header\n200 1 2\n";
  EXPECT_IO_ERROR(read_ply_bytes(ascii, "l.ply"), "list length 200 does not fit");
}

TEST(Ply, MalformedAsciiValues) {
  const std::string h = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty uchar r\nend_header\n";
  EXPECT_IO_ERROR(read_ply_bytes(h + "1 2\nabc 3\n", "a.ply"), "a.ply", "element 'vertex', row 1, property 'x'",
                  "'abc' is not a number");
  EXPECT_IO_ERROR(read_ply_bytes(h + "1 2\n1 300\n", "a.ply"), "row 1, property 'r'",
                  "300 is out of range for type uchar");
  EXPECT_IO_ERROR(read_ply_bytes(h + "1 2.5\n1 3\n", "a.ply"), "row 0, property 'r'", "'2.5' is not an integer");
  EXPECT_IO_ERROR(read_ply_bytes(h + "1 2\n1        ", "a.ply"), "row 1, property 'r'", "unexpected end of file");
  EXPECT_IO_ERROR(read_ply_bytes(h + "1 2\n1e999 3\n", "a.ply"), "is not a number (or is out of range)");
  EXPECT_IO_ERROR(read_ply_bytes(h + std::string(200, '1') + " 2\n1 2\n", "a.ply"), "is too long");
}

TEST(Ply, LargeFilesAreStreamedAndSkippedAcrossChunks) {
  // Several MiB: an unkept element is skipped (seeking past the read buffer), the kept one read across chunks.
  constexpr std::uint32_t kJunk = 700000, kRows = 300000;
  Bytes b;
  b.text("ply\nformat binary_little_endian 1.0\nelement junk " + std::to_string(kJunk) +
         "\nproperty double j\nelement vertex " + std::to_string(kRows) +
         "\nproperty float x\nproperty uchar k\n"
         "end_header\n");
  for (std::uint32_t i = 0; i < kJunk; ++i) b.le(double(i));
  for (std::uint32_t i = 0; i < kRows; ++i) b.le(float(i)).le(std::uint8_t(i & 0xff));
  test::TempDir dir;
  const std::string path = dir.write("large.ply", b.str());
  const PlyData ply =
      read_ply(path, [](const PlyElement& e, const PlyProperty& p) { return e.name == "vertex" && p.name == "x"; });
  EXPECT_TRUE(ply.find("junk")->columns.empty());
  const std::vector<float> x = values<float>(*ply.find("vertex"), "x");
  ASSERT_EQ(x.size(), kRows);
  for (std::uint32_t i = 0; i < kRows; i += 9973) EXPECT_EQ(x[i], float(i));
  EXPECT_EQ(x.back(), float(kRows - 1));
}
