// Internal image decoders behind read_image / decode_image: JPEG through libjpeg-turbo, PNG through libpng, BMP
// and TGA through stb_image. Each takes the whole file in memory, checks the size against a pixel limit before
// allocating, and throws IoError naming the file for anything it cannot decode completely.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "tilegrad/io/image.h"

namespace tilegrad::io::internal {

bool has_png_signature(std::string_view bytes);
bool has_jpeg_signature(std::string_view bytes);

Image decode_jpeg(std::string_view bytes, const std::string& name, std::size_t max_pixels);
Image decode_png(std::string_view bytes, const std::string& name, std::size_t max_pixels);
// BMP and TGA (stb_image).
Image decode_stb(std::string_view bytes, const std::string& name, std::size_t max_pixels);

// Header-only reads: size and channel count as the decoder would return them.
void jpeg_size(std::string_view bytes, const std::string& name, int& width, int& height, int& channels);
void png_size(std::string_view bytes, const std::string& name, int& width, int& height, int& channels);
void stb_size(std::string_view bytes, const std::string& name, int& width, int& height, int& channels);

// IoError unless 0 < width, height and width * height <= max_pixels.
void check_image_size(const std::string& name, long long width, long long height, std::size_t max_pixels);

}  // namespace tilegrad::io::internal
