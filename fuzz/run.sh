#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, AddressSanitizer + UndefinedBehaviorSanitizer, leak checks on) and runs
# each target for a fixed number of executions, starting from the committed seed corpus.
#   fuzz/run.sh [target...]        targets: ply colmap_binary colmap_text transforms mesh_text image (default: all)
# Environment: FUZZ_RUNS (executions per target, default 1000000), CXX (default clang++-14 or clang++),
# TILEGRAD_FUZZ_BUILD (build folder, default build/fuzz). New inputs found go to $TILEGRAD_FUZZ_BUILD/corpus/,
# crashes to $TILEGRAD_FUZZ_BUILD/artifacts/, full logs to $TILEGRAD_FUZZ_BUILD/logs/. Exits non-zero on a finding.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="${TILEGRAD_FUZZ_BUILD:-$root/build/fuzz}"
runs="${FUZZ_RUNS:-1000000}"
cxx="${CXX:-$(command -v clang++-14 || command -v clang++ || true)}"
if [ -z "$cxx" ]; then
  echo "run.sh: clang++ not found (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2
  exit 1
fi
all=(ply colmap_binary colmap_text transforms mesh_text image)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" --target $(printf 'fuzz_%s ' "${targets[@]}")
mkdir -p "$build/logs" "$build/artifacts"

status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t"
  dict=()
  [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  echo "== fuzz_$t: $runs executions =="
  start=$(date +%s)
  if "$build/fuzz_$t" -runs="$runs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      "${dict[@]}" -artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" "$here/corpus/$t" \
      >"$build/logs/$t.log" 2>&1; then
    grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$build/logs/$t.log" || true
    echo "   no crash, hang or leak in $(( $(date +%s) - start )) s"
  else
    status=1
    echo "   FINDING: see $build/logs/$t.log and $build/artifacts/" >&2
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$build/logs/$t.log" >&2 || true
  fi
done
exit $status
