// Image decoding (libjpeg-turbo, libpng, stb for BMP/TGA) on the committed seeds of fuzz/corpus/image, whose
// pixels follow a known pattern; and atomic replacement of written files.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io_fixtures.h"
#include "tilegrad/io/atomic_file.h"
#include "tilegrad/io/image.h"
#include "tilegrad/io/ply_gaussians.h"

using namespace tilegrad;

namespace {

std::string seed(const std::string& name) { return std::string(TILEGRAD_FUZZ_CORPUS_DIR) + "/image/" + name; }

// The seeds' pattern (fuzz/make_corpus.py).
float pattern(int x, int y, int c) { return float((37 * x + 91 * y + 53 * c + 17) % 256) / 255.0f; }

void expect_pattern(const io::Image& img, int width, int height, int channels, int pattern_channels) {
  ASSERT_EQ(img.width, width);
  ASSERT_EQ(img.height, height);
  ASSERT_EQ(img.channels, channels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < pattern_channels; ++c)
        ASSERT_EQ(img.at(x, y, c), pattern(x, y, c)) << x << "," << y << "," << c;
}

}  // namespace

TEST(ImageDecode, LosslessSeedsDecodeToTheirExactPixels) {
  expect_pattern(io::read_image(seed("valid_rgb.png")), 16, 12, 3, 3);
  expect_pattern(io::read_image(seed("valid_grey_interlaced.png")), 9, 7, 1, 1);  // Adam7
  expect_pattern(io::read_image(seed("valid_rgb.bmp")), 7, 5, 3, 3);
  const io::Image tga = io::read_image(seed("valid_rgba.tga"));
  expect_pattern(tga, 4, 3, 4, 3);
  EXPECT_EQ(tga.at(3, 2, 3), 1.0f);
  // 16 bits per sample survive: sample = pattern * 257 + channel.
  const io::Image deep = io::read_image(seed("valid_rgba16.png"));
  ASSERT_EQ(deep.channels, 4);
  for (int c = 0; c < 4; ++c)
    EXPECT_EQ(deep.at(4, 3, c), float((37 * 4 + 91 * 3 + 53 * c + 17) % 256 * 257 + c) / 65535.0f) << c;
  // Palette with transparency: expanded to RGBA. Index (x + y) % 4; palette bytes 0..11; alpha 0, 128, then 255.
  const io::Image pal = io::read_image(seed("valid_palette_trns.png"));
  ASSERT_EQ(pal.channels, 4);
  EXPECT_EQ(pal.at(1, 0, 0), 3.0f / 255.0f);
  EXPECT_EQ(pal.at(1, 0, 3), 128.0f / 255.0f);
  EXPECT_EQ(pal.at(0, 0, 3), 0.0f);
  EXPECT_EQ(pal.at(3, 0, 2), 11.0f / 255.0f);
  EXPECT_EQ(pal.at(3, 0, 3), 1.0f);
}

TEST(ImageDecode, JpegCodingsDecodeToTheSamePixels) {
  // Progressive and arithmetic coding store the same quantised coefficients as the baseline file: identical
  // pixels. (stb_image cannot decode arithmetic coding at all.)
  const io::Image baseline = io::read_image(seed("valid_baseline.jpg"));
  ASSERT_EQ(baseline.width, 24);
  ASSERT_EQ(baseline.height, 16);
  ASSERT_EQ(baseline.channels, 3);
  EXPECT_EQ(io::read_image(seed("valid_progressive.jpg")).pixels, baseline.pixels);
  EXPECT_EQ(io::read_image(seed("valid_arithmetic.jpg")).pixels, baseline.pixels);
  // Lossy (the pattern is all high frequencies), but each channel's mean survives.
  for (int c = 0; c < 3; ++c) {
    double decoded = 0, original = 0;
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 24; ++x) {
        decoded += baseline.at(x, y, c) / (24.0 * 16.0);
        original += pattern(x, y, c) / (24.0 * 16.0);
      }
    EXPECT_NEAR(decoded, original, 0.02) << "channel " << c;
  }
  EXPECT_EQ(io::read_image(seed("valid_grey.jpg")).channels, 1);
}

TEST(ImageDecode, TruncatedAndCorruptFilesAreErrors) {
  // Never a partly decoded image: the decoders' "premature end" warnings are errors here.
  EXPECT_IO_ERROR(io::read_image(seed("bad_truncated.jpg")), "bad_truncated.jpg", "cannot decode JPEG");
  EXPECT_IO_ERROR(io::read_image(seed("bad_truncated.png")), "bad_truncated.png", "cannot decode PNG");
  EXPECT_IO_ERROR(io::read_image(seed("bad_crc.png")), "bad_crc.png", "cannot decode PNG");
  // A Huffman table with more codes than symbols (an out-of-bounds write in stb_image 2022).
  EXPECT_IO_ERROR(io::read_image(seed("bad_huffman_counts.jpg")), "bad_huffman_counts.jpg", "Huffman");
  EXPECT_IO_ERROR(io::read_image(seed("bad_text.txt")), "bad_text.txt", "not a PNG, JPEG, BMP or TGA");
  EXPECT_IO_ERROR(io::read_image(seed("missing.png")), "missing.png", "not found");
}

TEST(ImageDecode, OversizedHeaderIsRefusedBeforeAllocating) {
  // 10^10 pixels claimed by a 68-byte file.
  EXPECT_IO_ERROR(io::read_image(seed("bad_huge.png")), "100000x100000", "more than");
  const std::string small = test::file_bytes(seed("valid_rgb.png"));
  EXPECT_IO_ERROR(io::decode_image(small, "limited.png", 100), "16x12", "more than the 100 pixels");
  EXPECT_NO_THROW(io::decode_image(small, "limited.png", 16 * 12));
}

TEST(ImageDecode, SizeReadFromTheHeaderMatchesTheDecodedImage) {
  for (const char* name : {"valid_rgb.png", "valid_rgba16.png", "valid_palette_trns.png", "valid_grey_interlaced.png",
                           "valid_baseline.jpg", "valid_grey.jpg", "valid_rgb.bmp", "valid_rgba.tga"}) {
    int w = 0, h = 0, c = 0;
    io::read_image_size(seed(name), w, h, c);
    const io::Image img = io::read_image(seed(name));
    EXPECT_EQ(w, img.width) << name;
    EXPECT_EQ(h, img.height) << name;
    EXPECT_EQ(c, img.channels) << name;
  }
}

TEST(ImageDecode, PngWrittenIsReadBackExactly) {
  test::TempDir dir;
  io::Image img(13, 9, 4);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 13; ++x)
      for (int c = 0; c < 4; ++c) img.at(x, y, c) = pattern(x, y, c);
  io::write_png(dir.file("a.png"), img);
  EXPECT_EQ(io::read_image(dir.file("a.png")).pixels, img.pixels);
}

namespace {

// Lowers the file size limit of this process for its lifetime (writes beyond it fail with EFBIG).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &m_saved);
    m_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = m_saved;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &m_saved);
    std::signal(SIGXFSZ, m_handler);
  }

 private:
  rlimit m_saved{};
  void (*m_handler)(int) = nullptr;
};

raster::Gaussians cloud(std::size_t n) {
  raster::Gaussians g = raster::Gaussians::allocate(n, 0, Device::Cpu);
  for (Buffer<float>* b : {&g.means, &g.log_scales, &g.opacity_logits, &g.sh})
    for (std::size_t i = 0; i < b->size(); ++i) b->data()[i] = 0.01f * float(i % 11);
  for (std::size_t i = 0; i < 4 * n; ++i) g.quats.data()[i] = i % 4 == 0 ? 1.0f : 0.0f;
  return g;
}

}  // namespace

TEST(AtomicFile, AFailedWriteLeavesThePreviousFileIntact) {
  test::TempDir dir;
  const std::string ply = dir.file("scene.ply"), png = dir.file("render.png");
  io::write_gaussians_ply(ply, cloud(10));
  io::Image img(64, 64, 3);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = float(i % 7) / 7.0f;
  io::write_png(png, img);
  const std::string ply_before = test::file_bytes(ply), png_before = test::file_bytes(png);
  {
    // The new contents no longer fit: a disk filling up, as far as the writer can tell.
    FileSizeLimit limit(ply_before.size() + 16);
    EXPECT_IO_ERROR(io::write_gaussians_ply(ply, cloud(1000)), "scene.ply", "write failed");
    io::Image noisy(256, 256, 3);
    for (std::size_t i = 0; i < noisy.pixels.size(); ++i) noisy.pixels[i] = float((i * 7919) % 251) / 251.0f;
    EXPECT_IO_ERROR(io::write_png(png, noisy), "render.png");
  }
  EXPECT_EQ(test::file_bytes(ply), ply_before);
  EXPECT_EQ(test::file_bytes(png), png_before);
  EXPECT_FALSE(std::filesystem::exists(io::partial_path(ply)));
  EXPECT_FALSE(std::filesystem::exists(io::partial_path(png)));
}

TEST(AtomicFile, OnlyACommittedFileReplacesTheDestination) {
  test::TempDir dir;
  const std::string path = dir.file("f.txt");
  io::write_file_atomically(path, "old");
  {
    io::AtomicFile f(path);
    f.write("new contents");
    EXPECT_EQ(test::file_bytes(path), "old");  // still the old file while writing
  }                                    // destroyed without commit (an exception on the way)
  EXPECT_EQ(test::file_bytes(path), "old");
  EXPECT_FALSE(std::filesystem::exists(io::partial_path(path)));
  io::AtomicFile f(path);
  f.write("new");
  f.commit();
  EXPECT_EQ(test::file_bytes(path), "new");
  EXPECT_IO_ERROR(io::write_file_atomically(dir.file("no/such/folder/f.txt"), "x"), "no/such/folder/f.txt",
                  "cannot open for writing");
}
