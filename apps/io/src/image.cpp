// Image reading (format dispatch over image_codecs.h) and writing (stb_image_write for PNG, a small PFM codec),
// every file replaced atomically.
#include "tilegrad/io/image.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

#include "image_codecs.h"
#include "io_util.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/atomic_file.h"

// stb decodes only what the maintained libraries do not: BMP and TGA.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_NO_STDIO
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

namespace tilegrad::io {

using detail::concat;

namespace internal {

void check_image_size(const std::string& name, long long width, long long height, std::size_t max_pixels) {
  if (width <= 0 || height <= 0) fail(name, "image has zero size (", width, "x", height, ")");
  if (static_cast<unsigned long long>(width) * static_cast<unsigned long long>(height) > max_pixels)
    fail(name, "image is ", width, "x", height, ", more than the ", max_pixels, " pixels tilegrad decodes");
}

namespace {
int stb_length(std::string_view bytes, const std::string& name) {
  if (bytes.size() > std::size_t(std::numeric_limits<int>::max())) fail(name, "file too large for an image");
  return static_cast<int>(bytes.size());
}
}  // namespace

Image decode_stb(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
  int w = 0, h = 0, c = 0;
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  if (!stbi_info_from_memory(data, stb_length(bytes, name), &w, &h, &c))
    fail(name, "cannot decode image (not a PNG, JPEG, BMP or TGA file)");
  check_image_size(name, w, h, max_pixels);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, stb_length(bytes, name), &w, &h, &c, 0),
                                                   stbi_image_free);
  if (!pixels) fail(name, "cannot decode image (", stbi_failure_reason(), ")");
  check_image_size(name, w, h, max_pixels);
  Image img(w, h, c);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = pixels.get()[i] / 255.0f;
  return img;
}

void stb_size(std::string_view bytes, const std::string& name, int& width, int& height, int& channels) {
  if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), stb_length(bytes, name), &width,
                             &height, &channels))
    fail(name, "not a readable image (not a PNG, JPEG, BMP or TGA file)");
  check_image_size(name, width, height, std::size_t(-1));
}

}  // namespace internal

Image decode_image(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
  if (internal::has_png_signature(bytes)) return internal::decode_png(bytes, name, max_pixels);
  if (internal::has_jpeg_signature(bytes)) return internal::decode_jpeg(bytes, name, max_pixels);
  return internal::decode_stb(bytes, name, max_pixels);
}

Image read_image(const std::string& path) { return decode_image(internal::read_file(path), path); }

void read_image_size(const std::string& path, int& width, int& height, int& channels) {
  const std::string bytes = internal::read_file(path);
  if (internal::has_png_signature(bytes)) {
    internal::png_size(bytes, path, width, height, channels);
  } else if (internal::has_jpeg_signature(bytes)) {
    internal::jpeg_size(bytes, path, width, height, channels);
  } else {
    internal::stb_size(bytes, path, width, height, channels);
  }
  internal::check_image_size(path, width, height, std::size_t(-1));
}

float linear_to_srgb(float x) {
  x = std::clamp(x, 0.0f, 1.0f);
  return x <= 0.0031308f ? 12.92f * x : 1.055f * std::pow(x, 1.0f / 2.4f) - 0.055f;
}

float srgb_to_linear(float x) {
  x = std::clamp(x, 0.0f, 1.0f);
  return x <= 0.04045f ? x / 12.92f : std::pow((x + 0.055f) / 1.055f, 2.4f);
}

namespace {
extern "C" void append_to_string(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), std::size_t(size));
}
}  // namespace

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
  std::string encoded;
  if (!stbi_write_png_to_func(append_to_string, &encoded, image.width, image.height, image.channels, bytes.data(),
                              image.width * image.channels))
    throw IoError(concat(path, ": cannot encode PNG"));
  write_file_atomically(path, encoded);
}

void write_pfm(const std::string& path, const Image& image) {
  TG_CHECK_ARG(image.channels == 1 || image.channels == 3, path, ": PFM holds 1 or 3 channels, not ",
               image.channels);
  AtomicFile f(path);
  f.write(std::string(image.channels == 3 ? "PF" : "Pf") + "\n" + std::to_string(image.width) + " " +
          std::to_string(image.height) + "\n-1.0\n");
  // PFM stores the bottom row first.
  for (int y = image.height - 1; y >= 0; --y)
    f.write(&image.pixels[std::size_t(y) * image.width * image.channels],
            sizeof(float) * std::size_t(image.width) * std::size_t(image.channels));
  f.commit();
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
