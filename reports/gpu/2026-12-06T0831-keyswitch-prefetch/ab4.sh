#!/usr/bin/env bash
# A/B of the key-switching inner product reading its first key words before waiting for ModUp:
# base (9af2cd7), pre (prefetch), pretrig (prefetch, and ModUp's chunk kernel lets it start early).
set -uo pipefail
start=$(date +%s)
bash tools/gpu/remote.sh none
export PATH=/tmp/fhelium-node/bin:$PATH
cd /tmp/fhelium-repo
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader > "$OUT/gpu.txt"
S='modUpDigitsNtt$|keyswitchInnerProduct|mul\+relin\+rescale|one pass'
for preset in n14-l7 n16-l23; do
  PROFILE_STEPS="$S" EACH_VARIANT_ROUNDS=2 timeout 150 bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs $preset graphSteps 10 > "$OUT/$preset.txt" 2>&1
  echo "$preset rc=$? at $(( $(date +%s) - start )) s"
done
cd "$OUT" && grep -E "^==|mul\+relin|one pass|keyswitchInner|modUpDigitsNtt" n14-l7.txt n16-l23.txt
