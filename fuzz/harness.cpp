// libFuzzer entry point for one target of targets.h, chosen at compile time by TILEGRAD_FUZZ_TARGET.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tilegrad::fuzz::Target* target = tilegrad::fuzz::find_target(TILEGRAD_FUZZ_TARGET);
  if (!target) std::abort();  // a build mistake, not an input problem
  target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
