// PNG decoding with libpng. Samples come out as stored (no gamma or colour-space conversion), palettes and
// low bit depths expanded to 8 bits, tRNS to an alpha channel, 16-bit samples kept. libpng reports errors by
// calling our error function, which long-jumps back into guarded() (see image_jpeg.cpp for the same scheme);
// reading past the end of the data is an error, so a truncated file is never half decoded.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "image_codecs.h"
#include "io_util.h"

namespace tilegrad::io::internal {

namespace {

constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
// Ancillary chunks (text, ICC profiles, ...) are not needed here: bound what one may allocate.
constexpr png_alloc_size_t kMaxChunkBytes = 8u << 20;

struct Source {
  const unsigned char* data;
  std::size_t size, offset;
  char message[200];
};

extern "C" void png_fail(png_structp png, png_const_charp message) {
  Source* s = static_cast<Source*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof(s->message), "%s", message);
  png_longjmp(png, 1);
}

extern "C" void png_warn(png_structp, png_const_charp) {}  // ancillary problems: the pixels are intact

extern "C" void png_read_bytes(png_structp png, png_bytep out, png_size_t length) {
  Source* s = static_cast<Source*>(png_get_io_ptr(png));
  if (length > s->size - s->offset) png_error(png, "truncated file");
  std::memcpy(out, s->data + s->offset, length);
  s->offset += length;
}

class Decoder {
 public:
  Decoder(std::string_view bytes, const std::string& name) : m_name(name) {
    m_source = {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), 0, {}};
    m_png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &m_source, png_fail, png_warn);
    if (!m_png) fail(name, "cannot decode PNG (out of memory)");
    m_info = png_create_info_struct(m_png);
  }
  ~Decoder() { png_destroy_read_struct(&m_png, m_info ? &m_info : nullptr, nullptr); }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  void read_header() {
    if (!m_info) fail(m_name, "cannot decode PNG (out of memory)");
    guarded([&] {
      png_set_read_fn(m_png, &m_source, png_read_bytes);
      png_set_chunk_malloc_max(m_png, kMaxChunkBytes);
      png_read_info(m_png, m_info);
      const int type = png_get_color_type(m_png, m_info);
      const int depth = png_get_bit_depth(m_png, m_info);
      if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(m_png);
      if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(m_png);
      if (png_get_valid(m_png, m_info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(m_png);
      png_set_interlace_handling(m_png);
      png_read_update_info(m_png, m_info);
    });
  }

  int width() const { return int(png_get_image_width(m_png, m_info)); }
  int height() const { return int(png_get_image_height(m_png, m_info)); }
  int channels() const { return int(png_get_channels(m_png, m_info)); }
  int depth() const { return int(png_get_bit_depth(m_png, m_info)); }

  Image decode() {
    const std::size_t row_bytes = png_get_rowbytes(m_png, m_info);
    const std::size_t h = std::size_t(height());
    std::vector<unsigned char> samples(row_bytes * h);
    std::vector<png_bytep> rows(h);
    for (std::size_t y = 0; y < h; ++y) rows[y] = samples.data() + y * row_bytes;
    guarded([&] {
      png_read_image(m_png, rows.data());
      png_read_end(m_png, nullptr);
    });
    Image img(width(), height(), channels());
    if (depth() == 16) {
      for (std::size_t i = 0; i < img.pixels.size(); ++i) {
        const unsigned v = (unsigned(samples[2 * i]) << 8) | samples[2 * i + 1];  // PNG stores big-endian
        img.pixels[i] = float(v) / 65535.0f;
      }
    } else {
      for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = float(samples[i]) / 255.0f;
    }
    return img;
  }

 private:
  template <class F>
  void guarded(F&& calls) {
    if (setjmp(png_jmpbuf(m_png))) fail(m_name, "cannot decode PNG (", m_source.message, ")");
    calls();
  }

  std::string m_name;
  Source m_source{};
  png_structp m_png = nullptr;
  png_infop m_info = nullptr;
};

}  // namespace

bool has_png_signature(std::string_view bytes) {
  return bytes.size() >= sizeof(kSignature) && std::memcmp(bytes.data(), kSignature, sizeof(kSignature)) == 0;
}

Image decode_png(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
  Decoder d(bytes, name);
  d.read_header();
  check_image_size(name, d.width(), d.height(), max_pixels);
  return d.decode();
}

void png_size(std::string_view bytes, const std::string& name, int& width, int& height, int& channels) {
  Decoder d(bytes, name);
  d.read_header();
  width = d.width();
  height = d.height();
  channels = d.channels();
}

}  // namespace tilegrad::io::internal
