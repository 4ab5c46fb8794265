// Adaptive density control of 3DGS on a GaussianModel: per-view screen-space statistics, clone / split /
// prune, opacity reset. Parameters, moments and statistics move together.
#pragma once
#include <cstdint>

#include "tilegrad/rasterizer/camera.h"
#include "tilegrad/rasterizer/settings.h"
#include "tilegrad/training/element/densify.h"
#include "tilegrad/training/model.h"

namespace tilegrad::training {

// Adds one view's statistics: for every Gaussian the rasterizer renders from `camera`, the norm of its
// view-space position gradient `mean2d_grad` [N, 2] (pixels, Gradients::mean2d) scaled to NDC, a view count,
// and its footprint radius. No host round trip.
void accumulate_density_stats(GaussianModel& model, const raster::Camera& camera,
                              const raster::RasterSettings& settings, View<const float> mean2d_grad);

// The settings whose culling decides which views count for the statistics (DensifyConfig's
// opacity_aware_visibility): the rasterizer's own (alpha >= 1/255 somewhere), or with min_alpha 0 the 3-sigma
// footprint touching the image.
inline raster::RasterSettings density_visibility(raster::RasterSettings settings, bool opacity_aware) {
  if (!opacity_aware) settings.thresholds.min_alpha = 0.0f;
  return settings;
}

struct DensifyCounts {
  std::size_t before = 0, cloned = 0, split = 0, pruned = 0, after = 0;
};

// Clones small and splits large Gaussians whose mean NDC gradient reaches the threshold, prunes by opacity and
// size (see DensifyRule), and restarts the statistics. Split offsets are addressed by (seed, iteration, index),
// the index of Gaussian i being first_index + i (a model that is one part of a partitioned one draws the offsets
// of the whole). `pruned` counts removed Gaussians and candidates (clones, children) that did not survive pruning.
DensifyCounts densify_and_prune(GaussianModel& model, const DensifyRule& rule, std::uint64_t seed,
                                std::uint64_t iteration, std::uint64_t first_index = 0);

// Opacities above max_opacity are lowered to it; the opacity moments restart.
void reset_opacity(GaussianModel& model, float max_opacity);

}  // namespace tilegrad::training
