#!/usr/bin/env bash
# Runs a command with the packed addon (labelled "base") and then with each variant that
# tools/gpu/pack-variant.mjs stored in .gpu/variants/, the loader picking the variant through
# FHELIUM_NATIVE_PATH. Each run's output follows a line "== NAME (round R)". On the GPU machine,
# after `bash tools/gpu/remote.sh none`, from /tmp/fhelium-repo (where .gpu/ is linked) with
# /tmp/fhelium-node/bin on PATH, for example:
#   EACH_VARIANT_ROUNDS=2 bash tools/gpu/each-variant.sh node tools/gpu/profile-ops.mjs n14-l7 graphSteps 200
# EACH_VARIANT_ROUNDS (default 1) repeats the whole round, so that a drift of the machine shows as
# a difference between rounds rather than between variants. Exits 1 if any run failed, 2 on bad
# usage or an unreadable variant.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: [EACH_VARIANT_ROUNDS=N] bash tools/gpu/each-variant.sh COMMAND [ARGS...]" >&2
  exit 2
fi
rounds="${EACH_VARIANT_ROUNDS:-1}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "each-variant: EACH_VARIANT_ROUNDS must be a positive integer, found '$rounds'" >&2
  exit 2
fi
variants="$(cd "$(dirname "$0")/../.." && pwd)/.gpu/variants"
unpacked="${TMPDIR:-/tmp}/fhelium-variants"
mkdir -p "$unpacked"
names=(base)
for packed in "$variants"/*.node.xz; do
  [ -e "$packed" ] || continue
  name="$(basename "$packed" .node.xz)"
  xz -dc "$packed" > "$unpacked/$name.node" || { echo "each-variant: cannot unpack $packed" >&2; exit 2; }
  names+=("$name")
done
status=0
for ((round = 1; round <= rounds; round++)); do
  for name in "${names[@]}"; do
    echo "== $name (round $round)"
    if [ "$name" = base ]; then
      "$@" || status=1
    else
      FHELIUM_NATIVE_PATH="$unpacked/$name.node" "$@" || status=1
    fi
  done
done
exit $status
