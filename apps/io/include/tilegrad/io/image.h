// Images on the host: float pixels in [0, 1], interleaved channels; PNG/JPEG reading (stb), PNG and PFM writing.
#pragma once
#include <string>
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

// Decodes PNG, JPEG, BMP, TGA (8 or 16 bit) to floats in [0, 1] as stored (no colour-space conversion).
// Throws IoError naming the file when it is missing, unreadable or not an image.
Image read_image(const std::string& path);
// Reads the size only (cheap): throws IoError like read_image.
void read_image_size(const std::string& path, int& width, int& height, int& channels);

// 8-bit PNG, values clamped to [0, 1]; encode_srgb applies the sRGB transfer curve to the colour channels
// (not alpha) for images holding linear radiance.
void write_png(const std::string& path, const Image& image, bool encode_srgb = false);
// Portable float map (.pfm, little-endian, 1 or 3 channels): exact float data for tests and tools.
void write_pfm(const std::string& path, const Image& image);
Image read_pfm(const std::string& path);

float linear_to_srgb(float linear);
float srgb_to_linear(float encoded);

}  // namespace tilegrad::io
