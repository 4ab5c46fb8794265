// Per-entry math of the dense vector operations (vector_ops.h), shared by the CPU and CUDA backends: one map
// and one reduction, selected by an operation code, so each backend has one loop or kernel for all of them.
#pragma once
#include <cstdint>

#include "tilegrad/core/math.h"

namespace tilegrad::blas_math {

enum class MapOp { Axpy, Xpby, ScaledCopy, Multiply, SafeReciprocal, Fill, Copy, MaskFill, MaskCopy };
enum class ReduceOp { Dot, MaxAbs, Sum, CountNonFinite };

// out[i] from alpha, x[i], y[i] (either may be null when the operation does not read it) and mask[i].
template <class T>
TG_HD TG_INLINE void map_entry(MapOp op, double alpha, const T* x, const T* y, const std::uint8_t* mask, T* out,
                               std::size_t i) {
  const T a = static_cast<T>(alpha);
  switch (op) {
    case MapOp::Axpy: out[i] += a * x[i]; break;
    case MapOp::Xpby: out[i] = x[i] + a * out[i]; break;
    case MapOp::ScaledCopy: out[i] = a * x[i]; break;
    case MapOp::Multiply: out[i] = x[i] * y[i]; break;
    case MapOp::SafeReciprocal: out[i] = T(1) / max(abs(x[i]), a); break;
    case MapOp::Fill: out[i] = a; break;
    case MapOp::Copy: out[i] = x[i]; break;
    case MapOp::MaskFill:
      if (mask[i]) out[i] = a;
      break;
    case MapOp::MaskCopy:
      if (mask[i]) out[i] = x[i];
      break;
  }
}

template <class T>
TG_HD TG_INLINE double reduce_entry(ReduceOp op, const T* a, const T* b, std::size_t i) {
  switch (op) {
    case ReduceOp::Dot: return static_cast<double>(a[i]) * static_cast<double>(b[i]);
    case ReduceOp::MaxAbs: return static_cast<double>(abs(a[i]));
    case ReduceOp::Sum: return static_cast<double>(a[i]);
    case ReduceOp::CountNonFinite: return is_finite(a[i]) ? 0.0 : 1.0;
  }
  return 0.0;
}

TG_HD TG_INLINE double combine(ReduceOp op, double s, double v) {
  // NaN in a max: keep it visible instead of letting fmax drop it.
  if (op == ReduceOp::MaxAbs) return (v != v || s != s) ? (v + s) : (v > s ? v : s);
  return s + v;
}

// The deterministic partition of a reduction: part p of `parts` covers [begin(p), begin(p + 1)).
TG_HD TG_INLINE std::size_t part_begin(std::size_t n, int parts, int p) {
  return n * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts);
}
constexpr int kMaxParts = 1024;
constexpr std::size_t kEntriesPerPart = 4096;

inline int parts_for(std::size_t n) {
  const std::size_t p = (n + kEntriesPerPart - 1) / kEntriesPerPart;
  return static_cast<int>(p < 1 ? 1 : (p > static_cast<std::size_t>(kMaxParts) ? kMaxParts : p));
}

}  // namespace tilegrad::blas_math
