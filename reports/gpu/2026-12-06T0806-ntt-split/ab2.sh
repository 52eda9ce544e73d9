#!/usr/bin/env bash
# A/B of the NTT phase split: base (log_n/2 column stages), split68 ((log_n-1)/2), chunk9 (max(6, log_n-9)),
# then each variant's cuda-native and ckks tests (FHELIUM_REQUIRE_CUDA=1).
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
for v in split68 chunk9; do
  for p in cuda-native ckks; do
    (cd packages/$p && FHELIUM_REQUIRE_CUDA=1 FHELIUM_NATIVE_PATH=/tmp/fhelium-variants/$v.node timeout 150 node ../../node_modules/vitest/vitest.mjs run 2>&1 | tail -5) > "$OUT/tests-$v-$p.txt"
    echo "$v $p: $(grep -E 'Tests ' "$OUT/tests-$v-$p.txt") at $(( $(date +%s) - start )) s"
  done
done
cd "$OUT" && grep -E "^==|mul\+relin|one pass \(|modUpDigitsNtt|rescaleNtt" n15-l15.txt n14-l7.txt n16-l23.txt
