#!/usr/bin/env bash
# Builds the ONNX importer's libFuzzer target with clang (build-fuzz/) and
# runs it for a bounded time on a corpus of small valid models.
#   scripts/fuzz.sh [SECONDS]      default 60; FUZZ_SEED picks the seed (1)
# Prints "fuzz: 1 passed, 0 failed" (or 0/1) as its last line; crashing
# inputs are kept in build-fuzz/artifacts/. Inputs that once crashed live in
# test/fuzz/regressions/ and are replayed on every run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
SECONDS_BUDGET="${1:-60}"

bash scripts/configure.sh build-fuzz \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTANDEM_BUILD_FUZZERS=ON \
  -DTANDEM_ENABLE_UNIT_TESTS=OFF
ninja -C build-fuzz tandem-onnx-import-fuzzer

# A fresh corpus of the same seeds and a fixed -seed make every run explore
# the same sequence of inputs: a longer local run covers what CI's shorter
# one will try, so the gate is reproducible rather than luck.
corpus=build-fuzz/corpus
rm -rf "$corpus"
mkdir -p "$corpus" build-fuzz/artifacts
.venv/bin/python test/tools/tandemc/Inputs/make_models.py "$corpus/seed" \
  conv_block shape_subgraph attention opset13_squeeze opset18_reduce \
  missing_initializer inconsistent_shapes dynamic_dims absurd_sizes \
  unsupported_ops
mv -f "$corpus"/seed/*.onnx "$corpus"/ && rm -rf "$corpus/seed"

rc=0
log=build-fuzz/fuzz.log
ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build-fuzz/bin/tandem-onnx-import-fuzzer "$corpus" test/fuzz/regressions \
  -seed="${FUZZ_SEED:-1}" -max_total_time="$SECONDS_BUDGET" \
  -rss_limit_mb=4096 -timeout=30 \
  -max_len=262144 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/artifacts/ > "$log" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then
  grep -E "^(Done|stat::)" "$log" || true
  echo "fuzz: 1 passed, 0 failed"
else
  # The sanitizer or libFuzzer report, then the crashing input's name.
  grep -E -A25 "ERROR:|runtime error|deadly signal|out-of-memory|timeout" \
    "$log" | head -n 60
  grep -E "Test unit written to" "$log" || true
  echo "fuzz: 0 passed, 1 failed (see build-fuzz/artifacts/ and $log)"
  exit 1
fi
