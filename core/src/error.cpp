// Out-of-line helpers of error.h.
#include "tilegrad/core/error.h"

namespace tilegrad::detail {

void throw_internal(const char* file, int line, const std::string& what) {
  throw InternalError(concat("internal error at ", file, ":", line, ": ", what));
}

}  // namespace tilegrad::detail
