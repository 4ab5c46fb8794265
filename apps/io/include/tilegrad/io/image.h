// Images on the host: float pixels in [0, 1], interleaved channels. Decoding: JPEG (libjpeg-turbo), PNG
// (libpng), BMP and TGA (stb_image); writing: PNG and PFM, replacing files atomically.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tilegrad::io {

struct Image {
  int width = 0, height = 0, channels = 0;
  std::vector<float> pixels;  // [height][width][channels], row 0 at the top

  Image() = default;
  Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(std::size_t(w) * h * c, 0.0f) {}
  float& at(int x, int y, int c) { return pixels[(std::size_t(y) * width + x) * channels + c]; }
  float at(int x, int y, int c) const { return pixels[(std::size_t(y) * width + x) * channels + c]; }
};

// The largest image decoded (2^28 pixels, e.g. 16384 x 16384): a larger size in a header is refused before any
// pixel memory is allocated.
constexpr std::size_t kMaxImagePixels = std::size_t(1) << 28;

// Decodes PNG (8 or 16 bit, any colour type; palettes and transparency expanded), JPEG (baseline, progressive,
// arithmetic; grey, RGB or CMYK), BMP or TGA to floats in [0, 1] as stored (no colour-space conversion). The
// format is recognised from the content, not the name. Channels: 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA. Throws
// IoError naming the file when it is missing, unreadable, not an image, larger than kMaxImagePixels, or not
// decodable completely (a truncated or corrupt file is an error, never a partly grey image).
Image read_image(const std::string& path);
// The same for file bytes in memory; `name` is the file named in errors.
Image decode_image(std::string_view bytes, const std::string& name, std::size_t max_pixels = kMaxImagePixels);
// Reads the size only (the header): throws IoError like read_image.
void read_image_size(const std::string& path, int& width, int& height, int& channels);

// 8-bit PNG (replaced atomically), values clamped to [0, 1]; encode_srgb applies the sRGB transfer curve to the colour channels
// (not alpha) for images holding linear radiance.
void write_png(const std::string& path, const Image& image, bool encode_srgb = false);
// Portable float map (.pfm, little-endian, 1 or 3 channels): exact float data for tests and tools.
void write_pfm(const std::string& path, const Image& image);
Image read_pfm(const std::string& path);

float linear_to_srgb(float linear);
float srgb_to_linear(float encoded);

}  // namespace tilegrad::io
