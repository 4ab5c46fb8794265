// Internal: entry points of the CUDA kernels of the training library (defined only in CUDA builds). Device
// pointers throughout; nothing here synchronises with the host unless it says so.
#pragma once
#include <cstddef>
#include <cstdint>

#include "adam_groups.h"
#include "density_args.h"
#include "loss_passes.h"
#include "tilegrad/core/workspace.h"
#include "tilegrad/training/element/resample.h"

namespace tilegrad::training::cuda_backend {

// The loss passes; values: 4 floats of device memory.
void image_loss(const detail::LossArgs<float>& args, float* values, Workspace& ws);

// One fused Adam step over every group.
void adam_step(const detail::AdamGroups& groups, const AdamStepConstants& constants);

void accumulate_density_stats(const detail::StatsArgs& args);
void plan_densification(const detail::PlanArgs& args);
void scatter_densified(const detail::ScatterArgs& args);
void reset_opacity(float* logits, float* m, float* v, std::size_t n, float max_logit);

// One thread per target pixel of element/resample.h.
void resample(const ResampleArgs& args);

}  // namespace tilegrad::training::cuda_backend
