#!/usr/bin/env bash
# Instructions per iteration of a Node.js loop, counted by Callgrind: a figure that holds still
# on a noisy or virtual machine, where wall-clock timings of the same code swing by 2x from one
# process to the next (docs/concepts/host-costs.md). Use it to compare two versions of a hot
# path; it says nothing of cache misses, stalls or the GPU.
#
#   tools/perf/icount.sh N SCRIPT [ARGS...]
#
# SCRIPT runs an N-iteration loop; `{N}` in ARGS is replaced by the iteration count. The script is
# run twice, with N and 2N iterations, and the difference of the two totals divided by N is
# printed: start-up, module loading and warm-up cancel out as long as N iterations reach the
# JIT's steady state (a few tens of thousands for a small call). Valgrind runs code about 50x
# slower; Node is run with --single-threaded so that no compiler or GC thread adds its own work.
# Example, the 1-leaf ReusableValueBuffer.copyFrom on the fake CUDA runtime (no GPU needed):
#   FHELIUM_NATIVE_PATH=$PWD/packages/cuda-native/build/Release/fhelium_native_fakecuda.node \
#     tools/perf/icount.sh 20000 tools/gpu/host-probe.mjs loop copy1 {N}
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: tools/perf/icount.sh N SCRIPT [ARGS...]  ({N} in ARGS becomes the iteration count)" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "icount: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
n=$1
shift

# Total instructions of one run with $1 iterations.
total() {
  local count=$1 args=() arg
  shift
  for arg in "$@"; do args+=("${arg//\{N\}/$count}"); done
  local log
  log=$(mktemp)
  if ! valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded "${args[@]}" >/dev/null 2>"$log"; then
    echo "icount: the script failed under valgrind:" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  sed -n 's/^==[0-9]*== Collected : *\([0-9]*\)$/\1/p' "$log"
  rm -f "$log"
}

once=$(total "$n" "$@")
twice=$(total $((2 * n)) "$@")
[ -n "$once" ] && [ -n "$twice" ] || { echo "icount: callgrind printed no total" >&2; exit 1; }
echo "$(( (twice - once) / n )) instructions per iteration ($once for $n iterations, $twice for $((2 * n)))"
