# Shared by the scripts: repository root, CPU count, CMake configure + build of one build folder.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"

# configure_and_build BUILD_DIR [cmake args...]
configure_and_build() {
  local build="$1"
  shift
  local launcher=()
  # A compiler cache, when installed, makes rebuilds of unchanged files (other build folders, other checkouts)
  # near free; the build does not depend on it.
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
  cmake --build "$build" -j "$jobs"
}
