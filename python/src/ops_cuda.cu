// The CUDA side of for_each (ops.h): one thread per index, on the default (legacy) stream, like the library.
#include <cuda_runtime.h>

#include "ops.h"
#include "tilegrad/core/cuda/check.h"

namespace tilegrad::python::cuda {
namespace {

template <class Op>
__global__ void for_each_kernel(Op op, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) op(i);
}

template <class Op>
void launch(std::size_t n, const Op& op) {
  constexpr unsigned kThreads = 256;
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  for_each_kernel<<<blocks, kThreads>>>(op, n);
  TG_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

#define TG_PYTHON_DEFINE_CUDA(Op) \
  void for_each(std::size_t n, const Op& op) { launch(n, op); }
TG_PYTHON_OPS(TG_PYTHON_DEFINE_CUDA)
#undef TG_PYTHON_DEFINE_CUDA

int current_device() {
  int device = 0;
  TG_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

}  // namespace tilegrad::python::cuda
