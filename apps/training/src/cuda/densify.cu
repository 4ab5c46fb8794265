// CUDA kernels of densification: per-view statistics, the per-Gaussian plan, the scatter into the new model,
// the opacity reset. One thread per Gaussian; the bodies are in density_args.h (arguments __grid_constant__, as
// in loss.cu).
#include "cuda_backend.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::training::cuda_backend {
namespace {

constexpr unsigned kBlock = 256;

__global__ void stats_kernel(const __grid_constant__ detail::StatsArgs a) {
  const std::size_t i = cuda::global_thread();
  if (i < a.n) detail::stats_element(a, i);
}

__global__ void plan_kernel(const __grid_constant__ detail::PlanArgs a) {
  const std::size_t i = cuda::global_thread();
  if (i < a.n) detail::plan_element(a, i);
}

__global__ void scatter_kernel(const __grid_constant__ detail::ScatterArgs a) {
  const std::size_t i = cuda::global_thread();
  if (i < a.n) detail::scatter_element(a, i);
}

__global__ void reset_opacity_kernel(float* logits, float* m, float* v, std::size_t n, float max_logit) {
  const std::size_t i = cuda::global_thread();
  if (i < n) detail::reset_opacity_element(logits, m, v, max_logit, i);
}

}  // namespace

void accumulate_density_stats(const detail::StatsArgs& a) { cuda::launch(stats_kernel, a.n, kBlock, 0, a); }
void plan_densification(const detail::PlanArgs& a) { cuda::launch(plan_kernel, a.n, kBlock, 0, a); }
void scatter_densified(const detail::ScatterArgs& a) { cuda::launch(scatter_kernel, a.n, kBlock, 0, a); }
void reset_opacity(float* logits, float* m, float* v, std::size_t n, float max_logit) {
  cuda::launch(reset_opacity_kernel, n, kBlock, 0, logits, m, v, n, max_logit);
}

}  // namespace tilegrad::training::cuda_backend
