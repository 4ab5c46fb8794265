// Image-quality metrics of a scene over a set of views: PSNR and SSIM of each render (clamped to [0, 1]) against
// its target composited on the evaluation background, and their means.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/dataset.h"
#include "tilegrad/training/loss.h"

namespace tilegrad::training {

struct ViewMetrics {
  std::string name;
  float psnr = 0, ssim = 0, l1 = 0;
};

struct Evaluation {
  std::string split;  // the views' split ("test" or "train"), set by the caller; metrics.json records it
  std::vector<ViewMetrics> views;
  double psnr = 0, ssim = 0, l1 = 0;  // means over the views
  double seconds = 0;                 // rendering and metrics, without what the sink does
};

// A view's render paired with its target for the loss or the metrics.
ImagePair image_pair(const TrainingView& view, const Buffer<float>& image, const float background[3]);

// Receives every render (index into the views, the view, the forward output on the rasterizer's device).
using RenderSink = std::function<void(std::size_t, const TrainingView&, const raster::ForwardOutput&)>;

// Views must have their images loaded, on the rasterizer's device. max_views > 0 evaluates at most that many,
// evenly spaced (every ceil(n / max_views)-th view).
Evaluation evaluate_views(raster::Rasterizer& rasterizer, ImageLoss& loss, const raster::GaussiansView& gaussians,
                          const std::vector<TrainingView>& views, const raster::RasterSettings& settings,
                          const RenderSink& sink = {}, std::size_t max_views = 0);

}  // namespace tilegrad::training
