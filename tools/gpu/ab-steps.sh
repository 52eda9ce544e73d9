#!/usr/bin/env bash
# A/B of addon variants as steps of replayed graphs, on the GPU machine: the packed addon ("base")
# and every variant that tools/gpu/pack-variant.mjs stored in .gpu/variants/, timed by
# tools/gpu/profile-ops.mjs graphSteps for each preset named, in rounds (tools/gpu/each-variant.sh),
# and optionally each variant's own tests. Through the device tool, with carry ['.gpu']:
#
#   bash tools/gpu/ab-steps.sh n14-l7 n16-l23
#
# Environment (all optional):
#   AB_STEPS    regular expression of the steps to time (profile-ops' PROFILE_STEPS); default: the
#               transforms and key-switch steps and the whole multiply + relinearize + rescale
#   AB_REPS     repetitions of each step in its graph (default 10)
#   AB_ROUNDS   rounds over base and variants (default 2), so that a drift of the machine shows as a
#               difference between rounds rather than between variants
#   AB_TIMEOUT  seconds allowed per preset (default 150)
#   AB_TESTS    space-separated packages whose tests run against every variant with
#               FHELIUM_REQUIRE_CUDA=1 (for example "cuda-native ckks"); default none
# Writes $OUT/gpu.txt (GPU and clocks), $OUT/<preset>.txt (every run's output) and
# $OUT/tests-<variant>-<package>.txt, and prints the chain rows of every preset with the elapsed
# time. Exits 2 on bad usage, 1 if a run or a test failed.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: [AB_STEPS=regex] [AB_REPS=N] [AB_ROUNDS=N] [AB_TIMEOUT=S] [AB_TESTS='pkg ...'] bash tools/gpu/ab-steps.sh PRESET..." >&2
  exit 2
fi
: "${OUT:?OUT must name the folder whose files come back}"
steps="${AB_STEPS:-nttInverse c1|nttForward|modUpDigitsNtt\$|keyswitchInnerProduct\$|modDownNtt|rescaleNtt|tensorProductInverseNtt|mul\\+relin\\+rescale|one pass \\(}"
reps="${AB_REPS:-10}"
rounds="${AB_ROUNDS:-2}"
limit="${AB_TIMEOUT:-150}"
for value in "$reps" "$rounds" "$limit"; do
  if ! [[ "$value" =~ ^[1-9][0-9]*$ ]]; then
    echo "ab-steps: AB_REPS, AB_ROUNDS and AB_TIMEOUT must be positive integers, found '$value'" >&2
    exit 2
  fi
done
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }

bash "$(dirname "$0")/remote.sh" none || { echo "ab-steps: cannot unpack .gpu" >&2; exit 2; }
export PATH=/tmp/fhelium-node/bin:$PATH
cd /tmp/fhelium-repo || exit 2
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
status=0
for preset in "$@"; do
  PROFILE_STEPS="$steps" EACH_VARIANT_ROUNDS="$rounds" timeout "$limit" \
    bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs "$preset" graphSteps "$reps" > "$OUT/$preset.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "$preset: rc $rc at $(elapsed)"
done
for packed in .gpu/variants/*.node.xz; do
  [ -e "$packed" ] || continue
  variant="$(basename "$packed" .node.xz)"
  for package in ${AB_TESTS:-}; do
    log="$OUT/tests-$variant-$package.txt"
    (cd "packages/$package" && FHELIUM_REQUIRE_CUDA=1 FHELIUM_NATIVE_PATH="/tmp/fhelium-variants/$variant.node" \
      timeout "$limit" node ../../node_modules/vitest/vitest.mjs run 2>&1 | tail -5) > "$log"
    if ! grep -qE "Tests .* passed" "$log" || grep -qE "failed" "$log"; then status=1; fi
    echo "$variant, $package tests: $(grep -E 'Tests ' "$log" | sed 's/\x1b\[[0-9;]*m//g') at $(elapsed)"
  done
done
for preset in "$@"; do
  grep -E "^==|mul\+relin|one pass" "$OUT/$preset.txt" | sed "s/^/$preset  /"
done
exit $status
