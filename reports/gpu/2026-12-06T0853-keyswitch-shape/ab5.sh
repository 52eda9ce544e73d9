#!/usr/bin/env bash
# A/B of the key-switching inner product's shape: base (2a8d581: 256 threads a block, 4 digits' loads ahead),
# ks128 (128 threads a block), ahead2 (2 digits ahead).
set -uo pipefail
start=$(date +%s)
bash tools/gpu/remote.sh none
export PATH=/tmp/fhelium-node/bin:$PATH
cd /tmp/fhelium-repo
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader > "$OUT/gpu.txt"
S='keyswitchInnerProduct|mul\+relin\+rescale|one pass \('
for preset in n14-l7 n16-l23; do
  PROFILE_STEPS="$S" EACH_VARIANT_ROUNDS=2 timeout 150 bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs $preset graphSteps 10 > "$OUT/$preset.txt" 2>&1
  echo "$preset rc=$? at $(( $(date +%s) - start )) s"
done
cd "$OUT" && grep -E "^==|mul\+relin|one pass|keyswitchInner|modUpDigitsNtt" n14-l7.txt n16-l23.txt
