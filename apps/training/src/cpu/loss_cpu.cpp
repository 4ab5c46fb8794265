// CPU loss: the passes of loss_passes.h as loops over rows (OpenMP), sums reduced per row in a fixed order.
// Rows are handed out dynamically: on a busy machine a thread that loses its core does not hold up the pass.
#include "cpu/loss_cpu.h"

namespace tilegrad::training::detail {

namespace {
// Rows are the unit of parallel work; below this many elements threads cost more than they save.
constexpr std::size_t kParallelMin = 1 << 14;
}  // namespace

template <class T>
void image_loss_cpu(const LossArgs<T>& a, float* values) {
  const std::size_t n = a.elements(), stride = std::size_t(a.width) * 3;
  const std::ptrdiff_t rows = a.height;
  const bool parallel = n > kParallelMin;
#pragma omp parallel for schedule(dynamic, 4) if (parallel)
  for (std::ptrdiff_t r = 0; r < rows; ++r)
    for (std::size_t e = std::size_t(r) * stride; e < std::size_t(r + 1) * stride; ++e) loss_rows_pass(a, e);
  constexpr int kSums = 4;  // ElementSums
  std::vector<double> row_sums(std::size_t(rows) * kSums, 0.0);
#pragma omp parallel for schedule(dynamic, 4) if (parallel)
  for (std::ptrdiff_t r = 0; r < rows; ++r) {
    double s[kSums] = {0.0, 0.0, 0.0, 0.0};
    for (std::size_t e = std::size_t(r) * stride; e < std::size_t(r + 1) * stride; ++e) {
      const ElementSums<T> v = loss_columns_pass(a, e);
      s[0] += double(v.abs_diff);
      s[1] += double(v.ssim);
      s[2] += double(v.sq_diff);
      s[3] += double(v.counted);
    }
    for (int k = 0; k < kSums; ++k) row_sums[std::size_t(r) * kSums + k] = s[k];
  }
  double total[kSums] = {0.0, 0.0, 0.0, 0.0};
  for (std::ptrdiff_t r = 0; r < rows; ++r)
    for (int k = 0; k < kSums; ++k) total[k] += row_sums[std::size_t(r) * kSums + k];
  finish_values(total[0], total[1], total[2], total[3], a.counted, a.lambda, values);
  if (!a.grad) return;
#pragma omp parallel for schedule(dynamic, 4) if (parallel)
  for (std::ptrdiff_t r = 0; r < rows; ++r)
    for (std::size_t e = std::size_t(r) * stride; e < std::size_t(r + 1) * stride; ++e) gradient_rows_pass(a, e);
#pragma omp parallel for schedule(dynamic, 4) if (parallel)
  for (std::ptrdiff_t r = 0; r < rows; ++r)
    for (std::size_t e = std::size_t(r) * stride; e < std::size_t(r + 1) * stride; ++e) gradient_columns_pass(a, e);
}

template void image_loss_cpu<float>(const LossArgs<float>&, float*);
template void image_loss_cpu<double>(const LossArgs<double>&, float*);

}  // namespace tilegrad::training::detail
