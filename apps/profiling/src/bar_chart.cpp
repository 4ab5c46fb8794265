// Rasterises BarChart into a PNG: filled rectangles, and text from stb_easy_font's quads.
#include "tilegrad/profiling/bar_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tilegrad/io/image.h"

// stb_easy_font is a single-header library whose functions are static: including it here is its intended use.
#include <stb/stb_easy_font.h>

namespace tilegrad::profiling {
namespace {

struct Canvas {
  io::Image img;
  Canvas(int w, int h) : img(w, h, 3) { std::fill(img.pixels.begin(), img.pixels.end(), 1.0f); }
  void rect(int x0, int y0, int x1, int y1, const float rgb[3]) {
    x0 = std::max(x0, 0), y0 = std::max(y0, 0);
    x1 = std::min(x1, img.width), y1 = std::min(y1, img.height);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < 3; ++c) img.at(x, y, c) = rgb[c];
  }
  // Text at (x, y) (top-left), scaled by an integer factor.
  void text(int x, int y, const std::string& s, int scale = 2, const float rgb[3] = nullptr) {
    static const float black[3] = {0.1f, 0.1f, 0.1f};
    const float* col = rgb ? rgb : black;
    std::vector<char> buf(s.size() * 270 + 64);
    std::string copy = s;
    const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buf.data(), int(buf.size()));
    const float* v = reinterpret_cast<const float*>(buf.data());
    for (int q = 0; q < quads; ++q) {
      const float* quad = v + q * 16;  // 4 vertices of (x, y, z, colour)
      const float qx0 = quad[0], qy0 = quad[1], qx1 = quad[8], qy1 = quad[9];
      rect(x + int(qx0 * scale), y + int(qy0 * scale), x + int(std::ceil(qx1 * scale)), y + int(std::ceil(qy1 * scale)),
           col);
    }
  }
};

int text_width(const std::string& s, int scale) {
  std::string copy = s;
  return stb_easy_font_width(copy.data()) * scale;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), v < 1 ? "%.3f" : (v < 100 ? "%.2f" : "%.0f"), v);
  return buf;
}

const float kPalette[][3] = {{0.22f, 0.47f, 0.75f}, {0.93f, 0.55f, 0.18f}, {0.36f, 0.66f, 0.34f},
                             {0.80f, 0.27f, 0.27f}, {0.55f, 0.42f, 0.72f}, {0.55f, 0.55f, 0.55f}};

}  // namespace

void write_bar_chart(const std::string& path, const BarChart& chart) {
  constexpr int kWidth = 1100, kLabel = 260, kRight = 190, kBar = 22, kGap = 8, kPanelTitle = 34, kPanelGap = 16;
  int height = 70 + 30;
  for (const auto& p : chart.panels) height += kPanelTitle + int(p.bars.size()) * (kBar + kGap) + kPanelGap;
  Canvas cv(kWidth, height);
  cv.text(16, 14, chart.title, 3);
  // Legend.
  int lx = 16;
  for (std::size_t i = 0; i < chart.segment_names.size(); ++i) {
    cv.rect(lx, 52, lx + 16, 66, kPalette[i % 6]);
    cv.text(lx + 22, 53, chart.segment_names[i], 2);
    lx += 40 + text_width(chart.segment_names[i], 2);
  }
  int y = 90;
  const int plot_w = kWidth - kLabel - kRight;
  for (const auto& panel : chart.panels) {
    cv.text(16, y + 8, panel.title, 2);
    y += kPanelTitle;
    double max_total = 0;
    for (const auto& b : panel.bars) {
      double t = 0;
      for (double s : b.segments) t += std::max(0.0, s);
      max_total = std::max(max_total, t);
    }
    if (max_total <= 0) max_total = 1;
    for (const auto& b : panel.bars) {
      cv.text(kLabel - 12 - text_width(b.label, 2), y + 4, b.label, 2);
      double at = 0;
      for (std::size_t i = 0; i < b.segments.size(); ++i) {
        const double s = std::max(0.0, b.segments[i]);
        const int x0 = kLabel + int(at / max_total * plot_w), x1 = kLabel + int((at + s) / max_total * plot_w);
        cv.rect(x0, y, std::max(x1, x0 + (s > 0 ? 1 : 0)), y + kBar, kPalette[i % 6]);
        at += s;
      }
      cv.text(kLabel + int(at / max_total * plot_w) + 8, y + 4, number(at) + " " + chart.unit, 2);
      y += kBar + kGap;
    }
    y += kPanelGap;
  }
  io::write_png(path, cv.img);
}

}  // namespace tilegrad::profiling
