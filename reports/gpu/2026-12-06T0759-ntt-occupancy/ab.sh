#!/usr/bin/env bash
# A/B of NTT occupancy variants (variants in .gpu/variants): graph steps at n14-l7 and n16-l23.
set -uo pipefail
start=$(date +%s)
bash tools/gpu/remote.sh none
export PATH=/tmp/fhelium-node/bin:$PATH
cd /tmp/fhelium-repo
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader > "$OUT/gpu.txt"
PROFILE_STEPS='nttInverse c1|nttForward|modUpDigitsNtt$|keyswitchInnerProduct$|modDownNtt|rescaleNtt|tensorProductInverseNtt|mul\+relin\+rescale|one pass \(' \
  EACH_VARIANT_ROUNDS=1 timeout 170 bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs n14-l7 graphSteps 20 > "$OUT/n14.txt" 2>&1
echo "n14 rc=$? at $(( $(date +%s) - start )) s"
PROFILE_STEPS='modUpDigitsNtt$|nttForward|nttInverse c1|rescaleNtt|mul\+relin\+rescale|one pass \(' \
  EACH_VARIANT_ROUNDS=1 timeout 150 bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs n16-l23 graphSteps 10 > "$OUT/n16.txt" 2>&1
echo "n16 rc=$? at $(( $(date +%s) - start )) s"
cat "$OUT/n14.txt" "$OUT/n16.txt" | grep -v "^\s*$" | head -120
