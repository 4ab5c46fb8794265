// A small PNG bar chart for benchmark reports: panels (one per workload) of horizontal bars (one per strategy),
// each bar a stack of coloured segments (stages), labelled with its total.
#pragma once
#include <string>
#include <vector>

namespace tilegrad::profiling {

struct Bar {
  std::string label;
  std::vector<double> segments;  // stacked left to right, in the chart's unit
};

struct Panel {
  std::string title;
  std::vector<Bar> bars;
};

struct BarChart {
  std::string title;
  std::string unit = "ms";
  std::vector<std::string> segment_names;  // legend; one colour per segment index
  std::vector<Panel> panels;
};

// Writes an 8-bit RGB PNG; each panel has its own linear scale. Throws IoError naming the path on failure.
void write_bar_chart(const std::string& path, const BarChart& chart);

}  // namespace tilegrad::profiling
