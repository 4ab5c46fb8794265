// JPEG decoding with libjpeg-turbo. libjpeg reports errors by calling error_exit, which must not return: here it
// long-jumps back into guarded(), whose frame and the C frames above it hold no C++ objects, then the decoder
// is destroyed and an IoError thrown. Warnings that mean lost or invalid pixel data (a truncated file, a bad
// entropy code) are errors too: a user's image is decoded completely or not at all.
#include <csetjmp>
#include <cstdio>
#include <vector>

#include "image_codecs.h"
#include "io_util.h"

// jpeglib.h needs FILE and size_t declared first; jerror.h needs jpeglib.h's configuration.
// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

namespace tilegrad::io::internal {

namespace {

// Progressive files may hold any number of scans, each a pass over the whole image; real files have about 10.
// A limit keeps a crafted file from spending minutes on one image.
constexpr int kMaxScans = 256;

struct ErrorState {
  jpeg_error_mgr mgr;  // first member: libjpeg's err pointer is cast back to ErrorState
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

extern "C" void jpeg_error_exit(j_common_ptr cinfo) {
  ErrorState* state = reinterpret_cast<ErrorState*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, state->message);
  std::longjmp(state->jump, 1);
}

bool corrupt_data_warning(int code) {
  switch (code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
#if JPEG_LIB_VERSION >= 70 || defined(C_ARITH_CODING_SUPPORTED) || defined(D_ARITH_CODING_SUPPORTED)
    case JWRN_ARITH_BAD_CODE:
#endif
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_NOT_SEQUENTIAL:
      return true;
    default:
      return false;
  }
}

extern "C" void jpeg_emit_message(j_common_ptr cinfo, int level) {
  // level -1: a warning; others are trace messages.
  if (level < 0 && corrupt_data_warning(cinfo->err->msg_code)) jpeg_error_exit(cinfo);
}

extern "C" void jpeg_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  const j_decompress_ptr d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number > kMaxScans) {
    std::snprintf(reinterpret_cast<ErrorState*>(cinfo->err)->message, JMSG_LENGTH_MAX,
                  "more than %d progressive scans", kMaxScans);
    std::longjmp(reinterpret_cast<ErrorState*>(cinfo->err)->jump, 1);
  }
}

class Decoder {
 public:
  explicit Decoder(const std::string& name) : m_name(name) {
    m_cinfo.err = jpeg_std_error(&m_error.mgr);
    m_error.mgr.error_exit = jpeg_error_exit;
    m_error.mgr.emit_message = jpeg_emit_message;
    m_error.message[0] = '\0';
    m_progress.progress_monitor = jpeg_progress;
    // Creation itself reports errors through error_exit.
    guarded([&] { jpeg_create_decompress(&m_cinfo); });
    m_created = true;
    m_cinfo.progress = &m_progress;
  }
  ~Decoder() {
    if (m_created) jpeg_destroy_decompress(&m_cinfo);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  void read_header(std::string_view bytes) {
    guarded([&] {
      jpeg_mem_src(&m_cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
                   static_cast<unsigned long>(bytes.size()));
      jpeg_read_header(&m_cinfo, TRUE);
    });
    // CMYK and YCCK (Adobe) come out as CMYK and are converted below; everything else as grey or RGB.
    switch (m_cinfo.jpeg_color_space) {
      case JCS_GRAYSCALE:
        m_cinfo.out_color_space = JCS_GRAYSCALE;
        break;
      case JCS_CMYK:
      case JCS_YCCK:
        m_cinfo.out_color_space = JCS_CMYK;
        break;
      default:
        m_cinfo.out_color_space = JCS_RGB;
        break;
    }
  }

  int width() const { return int(m_cinfo.image_width); }
  int height() const { return int(m_cinfo.image_height); }
  int channels() const { return m_cinfo.out_color_space == JCS_GRAYSCALE ? 1 : 3; }

  Image decode() {
    guarded([&] { jpeg_start_decompress(&m_cinfo); });
    const int components = m_cinfo.output_components;
    const std::size_t row_bytes = std::size_t(m_cinfo.output_width) * std::size_t(components);
    std::vector<JSAMPLE> samples(row_bytes * m_cinfo.output_height);
    guarded([&] {
      while (m_cinfo.output_scanline < m_cinfo.output_height) {
        JSAMPROW row = samples.data() + row_bytes * m_cinfo.output_scanline;
        jpeg_read_scanlines(&m_cinfo, &row, 1);
      }
      jpeg_finish_decompress(&m_cinfo);
    });
    Image img(int(m_cinfo.output_width), int(m_cinfo.output_height), channels());
    if (components == 4) {
      // Adobe writes CMYK inverted (0 = full ink), as practically every CMYK JPEG is: RGB = inverted C * K.
      for (std::size_t p = 0, n = img.pixels.size() / 3; p < n; ++p)
        for (int c = 0; c < 3; ++c)
          img.pixels[3 * p + std::size_t(c)] = float(samples[4 * p + std::size_t(c)]) * float(samples[4 * p + 3]) /
                                               (255.0f * 255.0f);
    } else {
      for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = float(samples[i]) / 255.0f;
    }
    return img;
  }

 private:
  // Runs libjpeg calls; their errors land here (no C++ object lives in this frame or the C frames above it).
  template <class F>
  void guarded(F&& calls) {
    if (setjmp(m_error.jump)) fail(m_name, "cannot decode JPEG (", m_error.message, ")");
    calls();
  }

  std::string m_name;
  ErrorState m_error;
  jpeg_progress_mgr m_progress{};
  jpeg_decompress_struct m_cinfo{};
  bool m_created = false;
};

}  // namespace

bool has_jpeg_signature(std::string_view bytes) {
  return bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
         static_cast<unsigned char>(bytes[1]) == 0xD8 && static_cast<unsigned char>(bytes[2]) == 0xFF;
}

Image decode_jpeg(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
  Decoder d(name);
  d.read_header(bytes);
  check_image_size(name, d.width(), d.height(), max_pixels);
  return d.decode();
}

void jpeg_size(std::string_view bytes, const std::string& name, int& width, int& height, int& channels) {
  Decoder d(name);
  d.read_header(bytes);
  width = d.width();
  height = d.height();
  channels = d.channels();
}

}  // namespace tilegrad::io::internal
