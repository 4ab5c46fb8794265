// Fused Adam: validation, step constants, and the CPU loop or the CUDA kernel.
#include "tilegrad/training/adam.h"

#include <cmath>

#include "adam_groups.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#if TILEGRAD_WITH_CUDA
#include "cuda_backend.h"
#endif

namespace tilegrad::training {

void adam_step(Device device, const std::vector<AdamGroup>& groups, std::int64_t step, const AdamSettings& s) {
  TG_CHECK_ARG(step >= 1, "adam_step: step must be >= 1 (got ", step, ")");
  TG_CHECK_ARG(groups.size() <= std::size_t(kMaxAdamGroups), "adam_step: at most ", kMaxAdamGroups, " groups (got ",
               groups.size(), ")");
  detail::AdamGroups flat;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const AdamGroup& a = groups[g];
    const std::size_t n = a.param.size();
    const std::string what = "adam group " + std::to_string(g);
    check_view(View<const float>(a.param), n, device, (what + " param").c_str());
    check_view(a.grad, n, device, (what + " grad").c_str());
    check_view(View<const float>(a.m), n, device, (what + " m").c_str());
    check_view(View<const float>(a.v), n, device, (what + " v").c_str());
    TG_CHECK_ARG(a.period >= 1 && a.head >= 0 && a.head <= a.period, what, ": need 0 <= head <= period");
    flat.group[flat.count++] = {a.param.data(), a.m.data(), a.v.data(), a.grad.data(), flat.total, flat.quads,
                                a.lr,           a.lr_tail,  a.period,   a.head};
    flat.total += n;
    flat.quads += (n + 3) / 4;
  }
  AdamStepConstants k;
  k.beta1 = s.beta1;
  k.beta2 = s.beta2;
  k.eps = s.eps;
  k.inv_bias1 = float(1.0 / (1.0 - std::pow(double(s.beta1), double(step))));
  k.inv_sqrt_bias2 = float(1.0 / std::sqrt(1.0 - std::pow(double(s.beta2), double(step))));
  if (device == Device::Cpu) {
    const auto total = static_cast<std::ptrdiff_t>(flat.total);
#pragma omp parallel for schedule(dynamic, 1 << 14) if (total > (1 << 16))
    for (std::ptrdiff_t e = 0; e < total; ++e) detail::adam_element(flat, k, std::size_t(e));
    return;
  }
#if TILEGRAD_WITH_CUDA
  cuda_backend::adam_step(flat, k);
#endif
}

}  // namespace tilegrad::training
