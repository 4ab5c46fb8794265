// Image reading and writing (stb_image / stb_image_write, and a small PFM codec).
#include "tilegrad/io/image.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "tilegrad/core/error.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_NO_GIF
#define STBI_NO_PSD
#define STBI_NO_PIC
#define STBI_NO_PNM
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

namespace tilegrad::io {

using detail::concat;

Image read_image(const std::string& path) {
  int w = 0, h = 0, c = 0;
  if (stbi_is_16_bit(path.c_str())) {
    std::unique_ptr<stbi_us, void (*)(void*)> data(stbi_load_16(path.c_str(), &w, &h, &c, 0), stbi_image_free);
    if (!data) throw IoError(concat(path, ": cannot read image (", stbi_failure_reason(), ")"));
    Image img(w, h, c);
    for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = data.get()[i] / 65535.0f;
    return img;
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> data(stbi_load(path.c_str(), &w, &h, &c, 0), stbi_image_free);
  if (!data) {
    std::ifstream probe(path);
    if (!probe) throw IoError(concat(path, ": file not found or not readable"));
    throw IoError(concat(path, ": cannot decode image (", stbi_failure_reason(), ")"));
  }
  if (w <= 0 || h <= 0) throw IoError(concat(path, ": image has zero size"));
  Image img(w, h, c);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = data.get()[i] / 255.0f;
  return img;
}

void read_image_size(const std::string& path, int& width, int& height, int& channels) {
  if (!stbi_info(path.c_str(), &width, &height, &channels)) {
    std::ifstream probe(path);
    if (!probe) throw IoError(concat(path, ": file not found or not readable"));
    throw IoError(concat(path, ": not a readable image (", stbi_failure_reason(), ")"));
  }
  if (width <= 0 || height <= 0) throw IoError(concat(path, ": image has zero size"));
}

float linear_to_srgb(float x) {
  x = std::clamp(x, 0.0f, 1.0f);
  return x <= 0.0031308f ? 12.92f * x : 1.055f * std::pow(x, 1.0f / 2.4f) - 0.055f;
}

float srgb_to_linear(float x) {
  x = std::clamp(x, 0.0f, 1.0f);
  return x <= 0.04045f ? x / 12.92f : std::pow((x + 0.055f) / 1.055f, 2.4f);
}

void write_png(const std::string& path, const Image& image, bool encode_srgb) {
  TG_CHECK_ARG(image.width > 0 && image.height > 0 && image.channels >= 1 && image.channels <= 4,
               path, ": cannot write a ", image.width, "x", image.height, "x", image.channels, " image");
  std::vector<unsigned char> bytes(image.pixels.size());
  const bool has_alpha = image.channels == 2 || image.channels == 4;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const bool alpha = has_alpha && (i % image.channels) == std::size_t(image.channels - 1);
    float v = image.pixels[i];
    if (!(v == v)) v = 0.0f;  // NaN would otherwise become an arbitrary byte
    v = (encode_srgb && !alpha) ? linear_to_srgb(v) : std::clamp(v, 0.0f, 1.0f);
    bytes[i] = static_cast<unsigned char>(std::lround(v * 255.0f));
  }
  if (!stbi_write_png(path.c_str(), image.width, image.height, image.channels, bytes.data(),
                      image.width * image.channels))
    throw IoError(concat(path, ": cannot write PNG"));
}

void write_pfm(const std::string& path, const Image& image) {
  TG_CHECK_ARG(image.channels == 1 || image.channels == 3, path, ": PFM holds 1 or 3 channels, not ",
               image.channels);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw IoError(concat(path, ": cannot open for writing"));
  f << (image.channels == 3 ? "PF" : "Pf") << "\n" << image.width << " " << image.height << "\n-1.0\n";
  // PFM stores the bottom row first.
  for (int y = image.height - 1; y >= 0; --y)
    f.write(reinterpret_cast<const char*>(&image.pixels[std::size_t(y) * image.width * image.channels]),
            static_cast<std::streamsize>(sizeof(float) * image.width * image.channels));
  if (!f) throw IoError(concat(path, ": write failed"));
}

Image read_pfm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError(concat(path, ": file not found or not readable"));
  std::string magic;
  int w = 0, h = 0;
  double scale = 0;
  f >> magic >> w >> h >> scale;
  f.get();
  if (!f || (magic != "PF" && magic != "Pf")) throw IoError(concat(path, ": not a PFM file"));
  if (w <= 0 || h <= 0 || w > (1 << 16) || h > (1 << 16)) throw IoError(concat(path, ": bad PFM size ", w, "x", h));
  if (scale >= 0) throw IoError(concat(path, ": big-endian PFM is not supported"));
  Image img(w, h, magic == "PF" ? 3 : 1);
  for (int y = h - 1; y >= 0; --y)
    f.read(reinterpret_cast<char*>(&img.pixels[std::size_t(y) * w * img.channels]),
           static_cast<std::streamsize>(sizeof(float) * w * img.channels));
  if (!f) throw IoError(concat(path, ": truncated PFM data"));
  return img;
}

}  // namespace tilegrad::io
