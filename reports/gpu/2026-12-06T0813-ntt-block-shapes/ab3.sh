#!/usr/bin/env bash
# A/B of NTT block shapes: base (7a1c964), col1024 (column blocks of 1024 words), chunk512 (chunk blocks of 512 words).
set -uo pipefail
start=$(date +%s)
bash tools/gpu/remote.sh none
export PATH=/tmp/fhelium-node/bin:$PATH
cd /tmp/fhelium-repo
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader > "$OUT/gpu.txt"
S='nttInverse c1|nttForward|modUpDigitsNtt$|modDownNtt|rescaleNtt|tensorProductInverseNtt|mul\+relin\+rescale|one pass \('
for preset in n15-l15 n14-l7 n16-l23; do
  PROFILE_STEPS="$S" EACH_VARIANT_ROUNDS=2 timeout 150 bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs $preset graphSteps 10 > "$OUT/$preset.txt" 2>&1
  echo "$preset rc=$? at $(( $(date +%s) - start )) s"
done
cd "$OUT" && grep -E "^==|mul\+relin|one pass \(|modUpDigitsNtt|rescaleNtt" n15-l15.txt n14-l7.txt n16-l23.txt
