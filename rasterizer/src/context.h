// Internal: the state a forward call saves for its backward, on the CPU or the CUDA backend.
#pragma once
#include <cstdint>
#include <memory>

#include "cpu/pipeline.h"
#include "cuda/device_state.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::raster {

struct Context {
  Device device = Device::Cpu;
  // Identity of the parameters rendered (checked by backward).
  std::size_t count = 0;
  const float* means = nullptr;
  std::uint64_t version = 0;
  int stored_degree = 0;
  bool uses_colors = false;
  int width = 0, height = 0;
  bool depth = false;  // the forward rendered depth (a dL/ddepth is accepted)
  std::size_t instances = 0, visible = 0;

  std::unique_ptr<cpu::State<float>> cpu_state;    // Device::Cpu
  std::unique_ptr<cuda_backend::DeviceState> cuda_state;  // Device::Cuda
};

}  // namespace tilegrad::raster
