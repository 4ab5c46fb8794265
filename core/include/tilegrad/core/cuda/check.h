// Checks for CUDA runtime calls and kernel launches; include only from CUDA-aware sources.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>

#include "tilegrad/core/error.h"

namespace tilegrad::detail {
[[noreturn]] inline void throw_cuda(cudaError_t err, const char* expr, const char* file, int line) {
  throw CudaError(concat("CUDA error '", cudaGetErrorString(err), "' (", cudaGetErrorName(err), ") in ", expr,
                         " at ", file, ":", line));
}
}  // namespace tilegrad::detail

#define TG_CUDA_CHECK(expr)                                                     \
  do {                                                                          \
    cudaError_t tg_err_ = (expr);                                               \
    if (tg_err_ != cudaSuccess) ::tilegrad::detail::throw_cuda(tg_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// For destructors and noexcept paths: report, never throw.
#define TG_CUDA_CHECK_NOTHROW(expr)                                                            \
  do {                                                                                         \
    cudaError_t tg_err_ = (expr);                                                              \
    if (tg_err_ != cudaSuccess)                                                                \
      std::fprintf(stderr, "tilegrad: CUDA error '%s' in %s at %s:%d\n", cudaGetErrorString(tg_err_), \
                   #expr, __FILE__, __LINE__);                                                 \
  } while (0)

// After every kernel launch: catches bad launch configurations immediately.
#define TG_CUDA_CHECK_LAUNCH() TG_CUDA_CHECK(cudaPeekAtLastError())
