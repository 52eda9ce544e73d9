#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool, with carry ['.gpu'] packed by
# tools/gpu/pack.mjs): unpacks Node, the test tools and the builds, then runs the whole test suite
# with FHELIUM_REQUIRE_CUDA=1 (CUDA tests fail instead of skipping) and the benchmarks.
# Results go to $OUT (at most 8 files come back):
#   env.txt        GPU, driver, node, commit, date
#   tests.log      the full console output of every package's tests
#   tests.json     counts per package (tools/test-summary.mjs)
#   bench.json     the `fhelium bench` record (FHELIUM_BENCH_SUITE, default all), or with
#                  FHELIUM_BENCH_FILTER the raw JSON of the matching bench scripts
#   bench.log      benchmark console output
#   selftest.txt   the native kernel self-test, when it was built
#   demo.txt       `fhelium info` and `fhelium demo` (arguments from FHELIUM_DEMO_ARGS)
#   examples.txt   the documentation's code examples, run with FHELIUM_REQUIRE_CUDA=1
# Usage: [FHELIUM_COMMIT=<sha>] bash tools/gpu/remote.sh [tests] [examples] [demo] [bench] [selftest]   (default: all five)
# It runs in the committed tree packed as .gpu/repo.tar.xz (its commit in .gpu/COMMIT); the working
# tree that travels with the call only supplies this script and .gpu/.
# FHELIUM_BENCH_FILTER=<text> runs only the benchmark scripts whose "package/file" matches that regular expression.
# FHELIUM_TEST_PACKAGES="graph buffer" runs only those packages' tests (folder names under packages/),
# for a short run when little device time is left; the default is every package.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?OUT must name the folder whose files come back}"
phases="${*:-tests examples demo bench selftest}"
has() { [[ " $phases " == *" $1 "* ]]; }

# Run in the committed tree that was packed (not in whatever working tree travelled with the call).
if [ -f .gpu/repo.tar.xz ]; then
  pack="$PWD/.gpu"
  repo=/tmp/fhelium-repo
  rm -rf "$repo" && mkdir -p "$repo" && xz -dc "$pack/repo.tar.xz" | tar -x -C "$repo" || { echo "cannot unpack the tree"; exit 2; }
  rm -rf "$repo/.gpu" && ln -s "$pack" "$repo/.gpu"
  export FHELIUM_COMMIT="${FHELIUM_COMMIT:-$(cat "$pack/COMMIT")}"
  cd "$repo"
fi

tools=/tmp/fhelium-node
mkdir -p "$tools/bin"
xz -dc .gpu/node.xz > "$tools/bin/node" && chmod +x "$tools/bin/node" || { echo "cannot unpack node"; exit 2; }
export PATH="$tools/bin:$PATH"
tar -xJf .gpu/node_modules.tar.xz || { echo "cannot unpack node_modules"; exit 2; }
tar -xJf .gpu/build.tar.xz || { echo "cannot unpack the builds"; exit 2; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${FHELIUM_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  echo "node: $(node --version)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
} | tee "$OUT/env.txt"

status=0
if has tests; then
  started=$(( $(date +%s) * 1000 ))
  export FHELIUM_REQUIRE_CUDA=1
  for dir in packages/*/; do
    [ -d "$dir/src" ] || continue
    if [ -n "${FHELIUM_TEST_PACKAGES:-}" ] && [[ " $FHELIUM_TEST_PACKAGES " != *" $(basename "$dir") "* ]]; then continue; fi
    echo "=== tests: $dir" | tee -a "$OUT/tests.log"
    (cd "$dir" && node ../../node_modules/vitest/vitest.mjs run --reporter=default --reporter=json \
      --outputFile.json=test-results/vitest.json) >> "$OUT/tests.log" 2>&1 || status=1
  done
  node tools/test-summary.mjs --since "$started" --json "$OUT/tests.json" | tee -a "$OUT/tests.log"
  unset FHELIUM_REQUIRE_CUDA
fi

# The documentation's code examples, those that need a GPU included (tools/docs/examples.mjs).
if has examples; then
  FHELIUM_REQUIRE_CUDA=1 node tools/docs/examples.mjs > "$OUT/examples.txt" 2>&1 || status=1
  tail -n 12 "$OUT/examples.txt"
fi

cli=packages/cli/dist/bin.js
if has demo; then
  if [ -f "$cli" ]; then
    { node "$cli" info && node "$cli" demo ${FHELIUM_DEMO_ARGS:-}; } > "$OUT/demo.txt" 2>&1 || status=1
    tail -n 30 "$OUT/demo.txt"
  else
    echo "no CLI build was packed; demo skipped"
  fi
fi

if has bench; then
  if [ -f "$cli" ] && [ -z "${FHELIUM_BENCH_FILTER:-}" ]; then
    # The record `fhelium bench` writes: every suite, each figure beside its reference figure.
    node "$cli" bench --suite "${FHELIUM_BENCH_SUITE:-all}" --out "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log" || status=1
  else
    node tools/gpu/run-benchmarks.mjs "$OUT/bench.json" "${FHELIUM_BENCH_FILTER:-}" 2>&1 | tee "$OUT/bench.log" || status=1
  fi
fi

if has selftest; then
  selftest=packages/cuda-native/build/Release/kernel_selftest
  if [ -x "$selftest" ]; then
    "$selftest" > "$OUT/selftest.txt" 2>&1 || status=1
    tail -n 40 "$OUT/selftest.txt"
  else
    echo "no kernel self-test binary was packed; skipped"
  fi
fi
exit $status
