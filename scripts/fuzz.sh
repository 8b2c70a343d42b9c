#!/usr/bin/env bash
# Builds Tandem's libFuzzer targets with clang (build-fuzz/) and runs each
# for a bounded time on a fixed corpus with a fixed seed:
#   tandem-onnx-import-fuzzer       the ONNX importer      SECONDS
#   tandem-npy-fuzzer               tandem-run's .npy reader  SECONDS/6
#   tandem-mlir-parse-fuzzer        .mlir parse + verify   SECONDS/3
#   tandem-model-descriptor-fuzzer  tandem_model_create    SECONDS/6
# (the three newer targets share 2/3 of SECONDS, at least 5 s each: a CI
# run with FUZZ_SECONDS=60 fuzzes about 100 s in all).
#   scripts/fuzz.sh [SECONDS] [TARGET...]   default 60 and every target;
#                                           FUZZ_SEED picks the seed (1)
# Each target also replays test/fuzz/regressions/<target>/, inputs that
# once crashed it. Prints "fuzz: N passed, M failed" (one per target) as
# its last line; crashing inputs are kept in build-fuzz/artifacts/<target>/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
SECONDS_BUDGET="${1:-60}"
shift || true
ALL=(onnx-import npy mlir-parse model-descriptor)
TARGETS=("${@:-${ALL[@]}}")

bash scripts/configure.sh build-fuzz \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTANDEM_BUILD_FUZZERS=ON \
  -DTANDEM_ENABLE_UNIT_TESTS=OFF
ninja -C build-fuzz $(printf 'tandem-%s-fuzzer ' "${TARGETS[@]}")

share() { # seconds of target $1
  local s
  case "$1" in
  onnx-import) echo "$SECONDS_BUDGET"; return ;;
  mlir-parse) s=$((SECONDS_BUDGET / 3)) ;;
  *) s=$((SECONDS_BUDGET / 6)) ;;
  esac
  [ "$s" -lt 5 ] && s=5
  echo "$s"
}

# Seeds: a fresh corpus of the same inputs per run, so that with a fixed
# -seed every run explores the same sequence of inputs: a longer local run
# covers what CI's shorter one will try, and the gate is reproducible.
seed_corpus() { # target dir
  local dir="$2"
  case "$1" in
  onnx-import)
    .venv/bin/python test/tools/tandemc/Inputs/make_models.py "$dir/seed" \
      conv_block shape_subgraph attention opset13_squeeze opset18_reduce \
      missing_initializer inconsistent_shapes dynamic_dims absurd_sizes \
      unsupported_ops
    mv -f "$dir"/seed/*.onnx "$dir"/ && rm -rf "$dir/seed"
    ;;
  npy)
    .venv/bin/python test/tools/tandem-run/Inputs/make_npy.py "$dir/seed"
    # Regular files only (the seed directory has no FIFO), small ones.
    find "$dir/seed" -name '*.npy' -size -64k -exec mv -f {} "$dir"/ \;
    rm -rf "$dir/seed"
    ;;
  mlir-parse)
    cp test/Dialect/Tandem/ops.mlir test/Dialect/Tandem/invalid.mlir \
      test/Dialect/Tandem/malformed-attrs.mlir \
      test/Dialect/TandemExec/ops.mlir "$dir"/ 2>/dev/null || true
    # One case per file, as -split-input-file would see them.
    local f i=0
    for f in test/Dialect/Tandem/invalid.mlir \
      test/Dialect/TandemExec/invalid.mlir; do
      awk -v out="$dir/split-$i-" \
        'BEGIN{n=0} /^\/\/ -----/{n++; next} {print > (out n ".mlir")}' "$f"
      i=$((i + 1))
    done
    ;;
  model-descriptor)
    # libFuzzer starts from the empty input and mutates; a few byte patterns
    # reach valid descriptors sooner.
    printf '\x02\x00\x00\x00\x01\x01' > "$dir/seed-valid-ish"
    head -c 256 /dev/zero > "$dir/seed-zeros"
    head -c 256 /dev/zero | tr '\0' '\377' > "$dir/seed-ones"
    ;;
  esac
}

passed=0
failed=0
mkdir -p build-fuzz/artifacts
for target in "${TARGETS[@]}"; do
  bin="build-fuzz/bin/tandem-$target-fuzzer"
  corpus="build-fuzz/corpus/$target"
  artifacts="build-fuzz/artifacts/$target/"
  regressions="test/fuzz/regressions/$target"
  rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts"
  seed_corpus "$target" "$corpus"
  dirs=("$corpus")
  [ -d "$regressions" ] && dirs+=("$regressions")
  seconds=$(share "$target")
  log="build-fuzz/fuzz-$target.log"
  echo "--- tandem-$target-fuzzer, $seconds s"
  rc=0
  ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" "${dirs[@]}" \
    -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" \
    -rss_limit_mb=4096 -timeout=30 \
    -max_len=262144 -print_final_stats=1 \
    -artifact_prefix="$artifacts" > "$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" ||
      true
    passed=$((passed + 1))
  else
    # The sanitizer or libFuzzer report, then the crashing input's name.
    grep -E -A25 "ERROR:|runtime error|deadly signal|out-of-memory|timeout" \
      "$log" | head -n 60
    grep -E "Test unit written to" "$log" || true
    echo "tandem-$target-fuzzer FAILED (see $artifacts and $log)"
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
