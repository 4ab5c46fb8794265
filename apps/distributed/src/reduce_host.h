// Internal: element-wise reductions of host arrays, shared by the simulated communicator and the host collectives.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilegrad/core/error.h"
#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed::detail {

// out[i] = op over ranks (in rank order) of inputs[r][i].
template <class T>
void reduce_typed(const std::vector<const void*>& inputs, std::size_t count, ReduceOp op, void* out) {
  T* o = static_cast<T*>(out);
  for (std::size_t i = 0; i < count; ++i) {
    T acc = static_cast<const T*>(inputs[0])[i];
    for (std::size_t r = 1; r < inputs.size(); ++r) {
      const T v = static_cast<const T*>(inputs[r])[i];
      acc = op == ReduceOp::Sum ? T(acc + v) : (op == ReduceOp::Max ? std::max(acc, v) : std::min(acc, v));
    }
    o[i] = acc;
  }
}

inline void reduce_host(const std::vector<const void*>& inputs, std::size_t count, DataType type, ReduceOp op,
                        void* out) {
  switch (type) {
    case DataType::U8:
      return reduce_typed<std::uint8_t>(inputs, count, op, out);
    case DataType::I32:
      return reduce_typed<std::int32_t>(inputs, count, op, out);
    case DataType::I64:
      return reduce_typed<std::int64_t>(inputs, count, op, out);
    case DataType::F32:
      return reduce_typed<float>(inputs, count, op, out);
    case DataType::F64:
      return reduce_typed<double>(inputs, count, op, out);
  }
  TG_ASSERT(false, "unknown data type");
}

}  // namespace tilegrad::distributed::detail
