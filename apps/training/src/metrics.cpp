// Evaluation of a scene over views.
#include "tilegrad/training/metrics.h"

#include <algorithm>
#include <chrono>

#include "tilegrad/core/error.h"

namespace tilegrad::training {

ImagePair image_pair(const TrainingView& view, const Buffer<float>& image, const float background[3]) {
  ImagePair pair;
  pair.width = view.camera.width;
  pair.height = view.camera.height;
  pair.image = image.view();
  pair.target = view.image.view();
  for (int c = 0; c < 3; ++c) pair.background[c] = background[c];
  if (!view.valid.empty()) {
    pair.valid = view.valid.view();
    pair.valid_pixels = view.valid_pixels;
  }
  return pair;
}

Evaluation evaluate_views(raster::Rasterizer& rasterizer, ImageLoss& loss, const raster::GaussiansView& gaussians,
                          const std::vector<TrainingView>& views, const raster::RasterSettings& settings,
                          const RenderSink& sink, std::size_t max_views) {
  Evaluation e;
  double busy = 0;
  const std::size_t stride = max_views > 0 ? std::max<std::size_t>(1, (views.size() + max_views - 1) / max_views) : 1;
  const std::size_t count = (views.size() + stride - 1) / stride;
  for (std::size_t i = 0; i < views.size(); i += stride) {
    const TrainingView& v = views[i];
    TG_CHECK_ARG(!v.image.empty(), "evaluate: the image of view '", v.name, "' is not loaded");
    const auto t0 = std::chrono::steady_clock::now();
    const raster::ForwardOutput out = rasterizer.forward(gaussians, v.camera, settings);
    const LossValues values = loss.evaluate(image_pair(v, out.image, settings.background));
    busy += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    e.views.push_back({v.name, psnr_from_mse(values.mse), values.ssim, values.l1});
    e.psnr += e.views.back().psnr / double(count);
    e.ssim += values.ssim / double(count);
    e.l1 += values.l1 / double(count);
    if (sink) sink(i, v, out);
  }
  e.seconds = busy;
  return e;
}

}  // namespace tilegrad::training
