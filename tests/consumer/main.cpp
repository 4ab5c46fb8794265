// Uses the installed tilegrad: a dual-number gradient and a deterministic accumulation on the CPU.
#include <cmath>
#include <cstdio>
#include <vector>

#include <tilegrad/ad/accumulator.h>
#include <tilegrad/ad/derivatives.h>

struct Energy {
  template <class S>
  S operator()(const tilegrad::Vec<S, 2>& x) const {
    return tilegrad::sqr(x[0] - 1.0f) + tilegrad::exp(x[1]) * x[0];
  }
};

int main() {
  using namespace tilegrad;
  const auto r = value_gradient(Energy{}, Vec<float, 2>{{2.0f, 0.0f}});
  // d/dx0 = 2 (x0 - 1) + e^x1 = 3, d/dx1 = e^x1 x0 = 2
  if (std::fabs(r.gradient[0] - 3.0f) > 1e-6f || std::fabs(r.gradient[1] - 2.0f) > 1e-6f) {
    std::fprintf(stderr, "consumer: wrong gradient\n");
    return 1;
  }
  std::vector<std::uint32_t> ids = {0, 1, 0};
  std::vector<float> values = {1.0f, 2.0f, 3.0f}, grad(2, 0.0f);
  Contributions in{View<const std::uint32_t>(ids.data(), ids.size(), Device::Cpu),
                   View<const float>(values.data(), values.size(), Device::Cpu), 1, {}};
  Accumulator acc(Device::Cpu);
  acc.accumulate(Accumulation::SortReduce, in, View<float>(grad.data(), grad.size(), Device::Cpu));
  if (grad[0] != 4.0f || grad[1] != 2.0f) {
    std::fprintf(stderr, "consumer: wrong accumulation\n");
    return 1;
  }
  std::printf("tilegrad consumer: OK (gradient %.1f %.1f, accumulated %.1f %.1f)\n", r.gradient[0], r.gradient[1],
              grad[0], grad[1]);
  return 0;
}
