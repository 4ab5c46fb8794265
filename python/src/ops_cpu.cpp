// for_each of the binding's per-element operations: the CPU loop, or the CUDA kernel (ops_cuda.cu).
#include "ops.h"

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace tilegrad::python {

#define TG_PYTHON_DEFINE_FOR_EACH(Op)                                                    \
  void for_each(Device device, std::size_t n, const Op& op) {                            \
    if (device == Device::Cpu) {                                                         \
      for (std::size_t i = 0; i < n; ++i) op(i);                                         \
    } else if (TILEGRAD_WITH_CUDA) {                                                     \
      if (n > 0) cuda::for_each(n, op);                                                  \
    } else {                                                                             \
      throw Unsupported("this tilegrad build has no CUDA backend (rebuild with nvcc on the PATH)"); \
    }                                                                                    \
  }
TG_PYTHON_OPS(TG_PYTHON_DEFINE_FOR_EACH)
#undef TG_PYTHON_DEFINE_FOR_EACH

#if !TILEGRAD_WITH_CUDA
namespace cuda {
#define TG_PYTHON_DEFINE_NO_CUDA(Op) \
  void for_each(std::size_t, const Op&) { throw Unsupported("this tilegrad build has no CUDA backend"); }
TG_PYTHON_OPS(TG_PYTHON_DEFINE_NO_CUDA)
#undef TG_PYTHON_DEFINE_NO_CUDA
int current_device() { return -1; }
}  // namespace cuda
#endif

}  // namespace tilegrad::python
