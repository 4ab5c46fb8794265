# Shared by the scripts: repository root, CPU count, CMake configure + build of one build folder.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"

# configure_and_build BUILD_DIR [cmake args...]
configure_and_build() {
  local build="$1"
  shift
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build" -j "$jobs"
}
