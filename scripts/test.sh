#!/usr/bin/env bash
# Runs Tandem's whole test suite from any state, fresh machine included:
# installs what is missing, builds, runs the lit + GoogleTest suites, then
# rebuilds with AddressSanitizer + UBSan and runs them again.
#
#   scripts/test.sh                  everything (what CI runs)
#   scripts/test.sh --no-sanitizers  skip the ASan/UBSan pass
#   scripts/test.sh --full           also import the large models (ResNet-50,
#                                    DenseNet, ConvNeXt, ...), not just CI's
#                                    representative subset
#
# Then runs the ONNX backend conformance runner (test/onnx-backend), which
# also rewrites docs/onnx-conformance.md, imports the torch-exported models
# (test/models), fuses ResNet-18, MobileNetV2 and the Transformer encoder
# layer and checks their kernel counts, installs the build and builds
# examples/deploy against the installed CMake package (test/install), runs
# the tandem Python package's tests (python/tests/run.sh), and runs the
# libFuzzer targets of scripts/fuzz.sh on a FUZZ_SECONDS budget (default 60).
# Ends with one line "tests: N passed, M failed" summing everything.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Let clones at other paths (CI) share this machine's compiler cache.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1

SANITIZERS=1
MODEL_SET=ci
for arg in "$@"; do
  case "$arg" in
    --no-sanitizers) SANITIZERS=0 ;;
    --full) MODEL_SET=full ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh

LIT=/usr/lib/llvm-22/bin/lit
total_pass=0
total_fail=0
# What failed, repeated at the end so that a log's tail names it.
failures=""

# note_failure SUITE TEXT: adds SUITE and the lines of TEXT that name a
# failure (at most 20) to the recap printed before the totals.
note_failure() {
  local lines
  lines=$(printf '%s\n' "$2" | grep -E -i '(^|[^a-z])(fail(ed|ure)?|mismatch|error|timeout|timed out)([^a-z]|$)' \
    | grep -v -E ' 0 failed|passed, 0 failed' | head -n 20 || true)
  failures+="--- $1"$'\n'"${lines:-(no failing line printed: see the output of the suite above)}"$'\n'
}

# run_suite NAME BUILD_DIR [extra cmake args...]
run_suite() {
  local name="$1" dir="$2"
  shift 2
  echo "=== [$name] configure + build in $dir"
  bash scripts/configure.sh "$dir" "$@"
  ninja -C "$dir" all TandemUnitTests
  echo "=== [$name] lit"
  local json="$dir/test-results.json"
  rm -f "$json"
  local rc=0
  "$LIT" -sv --timeout=300 -o "$json" "$dir/test" "$dir/test/unit" \
    "$dir/test/runtime" || rc=$?
  if [ ! -f "$json" ]; then
    echo "[$name] lit produced no results" >&2
    total_fail=$((total_fail + 1))
    return
  fi
  read -r pass fail < <(python3 scripts/lit_summary.py "$json")
  if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then fail=1; fi
  if [ "$fail" != 0 ]; then
    note_failure "$name lit" "$(python3 scripts/lit_summary.py --failed "$json")"
  fi
  echo "=== [$name] $pass passed, $fail failed"
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
}

run_suite release build

# add_counts RC OUTPUT: adds OUTPUT's last line, "NAME: N passed, M failed",
# to the totals; a non-zero RC with no counted failure is one failure.
add_counts() {
  local rc="$1" last fail=0
  last=$(printf '%s\n' "$2" | tail -n 1)
  if [[ "$last" =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    total_pass=$((total_pass + BASH_REMATCH[1]))
    fail=${BASH_REMATCH[2]}
  fi
  if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then fail=1; fi
  total_fail=$((total_fail + fail))
  if [ "$fail" != 0 ]; then note_failure "${last%%:*} (exit $rc)" "$2"; fi
}

# ONNX backend node tests: every in-scope test must import or be listed as
# unsupported with its reason; the table goes to docs/onnx-conformance.md.
echo "=== [onnx-backend] conformance"
rc=0
out=$(.venv/bin/python test/onnx-backend/run_conformance.py \
  --tandemc build/bin/tandemc --write-docs docs/onnx-conformance.md) || rc=$?
echo "$out"
add_counts "$rc" "$out"

# The same node tests compiled to shared libraries and run with tandem-run,
# compared with their expected outputs (rtol 1e-3, atol 1e-5) and with
# onnxruntime's wherever it runs the model.
echo "=== [onnx-numeric] backend node tests compiled, run and compared"
rc=0
out=$(.venv/bin/python test/onnx-backend/run_numeric.py \
  --tandemc build/bin/tandemc --tandem-run build/bin/tandem-run \
  --work build/onnx-numeric --onnxruntime) || rc=$?
printf '%s\n' "$out" | tail -n 20
add_counts "$rc" "$out"

# The same node tests with every op the GPU runs placed on it, run on the
# emulated device with CPU twins compiled from the GPU kernels' own mapping
# (blocks, threads, shuffles, shared memory, prologues, epilogues): the
# GPU code path against the tests' expected outputs (~30 s).
echo "=== [onnx-numeric-gpu] backend node tests on the GPU (emulated, mapped twins)"
rc=0
out=$(.venv/bin/python test/onnx-backend/run_numeric.py \
  --tandemc build/bin/tandemc --tandem-run build/bin/tandem-run \
  --work build/onnx-numeric-gpu --gpu mapped) || rc=$?
printf '%s\n' "$out" | tail -n 20
add_counts "$rc" "$out"

# Special values: every elementwise op as a one-op model over +-0, +-inf,
# NaN, denormals, negative and huge inputs (integer extremes, every bool
# pair), on the CPU and placed on the GPU (emulated, mapped twins), against
# onnxruntime; NaN positions must agree (~40 s).
echo "=== [special-values] elementwise ops on special values vs onnxruntime"
rc=0
out=$(.venv/bin/python test/e2e/run_special_values.py \
  --tandemc build/bin/tandemc --tandem-run build/bin/tandem-run \
  --work build/special-values) || rc=$?
printf '%s\n' "$out" | tail -n 20
add_counts "$rc" "$out"

# Integration: torchvision, Transformer, BERT-style and MLP models exported
# with torch (random weights) must import to static tandem IR.
echo "=== [torch-models] export ($MODEL_SET set) + import"
/usr/bin/python3 test/models/generate_torch_models.py build/models \
  --set "$MODEL_SET" 2>&1 | grep -v -i warn || true
rc=0
out=$(/usr/bin/python3 test/models/import_models.py --tandemc build/bin/tandemc \
  --models build/models --set "$MODEL_SET") || rc=$?
echo "$out"
add_counts "$rc" "$out"

# Integration: the same models placed on a CPU + H100 target must run on the
# GPU as a whole, with one copy in and one copy out.
echo "=== [torch-placement] cpu,gpu:sm_90 placement and partitioning"
rc=0
out=$(/usr/bin/python3 test/models/place_models.py --tandemc build/bin/tandemc \
  --models build/models --set "$MODEL_SET") || rc=$?
echo "$out"
add_counts "$rc" "$out"

# Fusion on the same models: kernel counts and epilogue structure of
# ResNet-18, MobileNetV2 and the Transformer encoder layer.
echo "=== [fuse-models] tandemc --compile-to=fused"
rc=0
out=$(/usr/bin/python3 test/models/fuse_models.py --tandemc build/bin/tandemc \
  --models build/models) || rc=$?
echo "$out"
add_counts "$rc" "$out"

# End to end: models compiled to shared libraries, run with tandem-run and
# compared with onnxruntime (rtol 1e-4, atol 1e-5), on one thread and on
# two (the parallel loops and sgemm), with bit-identical outputs.
echo "=== [e2e] tandemc --emit=shared + tandem-run --compare vs onnxruntime"
rc=0
out=$(.venv/bin/python test/e2e/run_e2e.py --tandemc build/bin/tandemc \
  --tandem-run build/bin/tandem-run --work build/e2e --models build/models \
  --set "$MODEL_SET" --threads 1,2) || rc=$?
echo "$out"
add_counts "$rc" "$out"

# A new user's models: timm and transformers exports (the libraries' own
# model code, random weights, torch.onnx.export defaults, a dynamic batch
# bound with --input-shape) compiled and compared with onnxruntime.
echo "=== [hub-models] timm + transformers exports vs onnxruntime"
/usr/bin/python3 test/models/generate_hub_models.py build/hub-models \
  --set "$MODEL_SET" 2>&1 | grep -v -i warn || true
rc=0
out=$(.venv/bin/python test/e2e/run_e2e.py --tandemc build/bin/tandemc \
  --tandem-run build/bin/tandem-run --work build/hub-e2e \
  --models build/hub-models --set "hub-$MODEL_SET") || rc=$?
echo "$out"
add_counts "$rc" "$out"

# Heterogeneous end to end: the torch models with GPU partitions and a CPU
# island between them (GPU -> CPU -> GPU copies at every residual add,
# softmax, ...), run on the emulated GPU and on the CPU fallback; both must
# match onnxruntime and each other bit for bit. (ptxas on their kernels is
# the lit test Codegen/GPU/ptxas-torch-models.test.)
echo "=== [gpu-e2e] GPU partitions on the emulated device and the CPU fallback"
rc=0
out=$(.venv/bin/python test/e2e/run_e2e.py --tandemc build/bin/tandemc \
  --tandem-run build/bin/tandem-run --work build/gpu-e2e --models build/models \
  --set "$MODEL_SET" --gpu island --devices emulated,cpu \
  mlp conv_bn_relu resnet18 mobilenet_v2 transformer_encoder) || rc=$?
echo "$out"
add_counts "$rc" "$out"
echo "=== [gpu-e2e-two-gpus] two GPUs: one kind of op on /device:GPU:1, the rest on GPU:0"
rc=0
out=$(.venv/bin/python test/e2e/run_e2e.py --tandemc build/bin/tandemc \
  --tandem-run build/bin/tandem-run --work build/gpu-e2e-two-gpus \
  --models build/models --set "$MODEL_SET" --gpu two-gpus \
  --devices emulated,cpu mlp resnet18 mobilenet_v2 transformer_encoder) || rc=$?
echo "$out"
add_counts "$rc" "$out"
echo "=== [gpu-e2e-mapped] every op on the GPU, twins running the GPU kernels' mapping"
rc=0
out=$(.venv/bin/python test/e2e/run_e2e.py --tandemc build/bin/tandemc \
  --tandem-run build/bin/tandem-run --work build/gpu-e2e-mapped \
  --models build/models --set "$MODEL_SET" --gpu all --gpu-twins mapped \
  --devices emulated,cpu \
  mlp conv_bn_relu grouped_convs resnet18 mobilenet_v2 transformer_encoder \
  lstm_tagger gru_encoder unet_small gpt_block audio_encoder detection_head \
  video_classifier) || rc=$?
echo "$out"
add_counts "$rc" "$out"
# Without the GEMM and convolution libraries (TANDEM_EMULATED_GEMM=0,
# TANDEM_EMULATED_CONV=0) the fallback kernels run: the tiled contractions
# (implicit GEMM through shared memory), through their mapped twins.
echo "=== [gpu-e2e-fallback] no GEMM or conv library: the tiled generated kernels, mapped twins"
rc=0
out=$(TANDEM_EMULATED_GEMM=0 TANDEM_EMULATED_CONV=0 .venv/bin/python \
  test/e2e/run_e2e.py --tandemc build/bin/tandemc \
  --tandem-run build/bin/tandem-run --work build/gpu-e2e-fallback \
  --models build/models --set "$MODEL_SET" --gpu all --gpu-twins mapped \
  --devices emulated \
  mlp conv_bn_relu grouped_convs resnet18 mobilenet_v2_bn transformer_encoder \
  unet_small video_classifier gpt_block) || rc=$?
echo "$out"
add_counts "$rc" "$out"
# --gpu-precision: the library GEMMs and convolutions round their operands
# to BF16 (convolutions TF32) and TF32 on the emulated device and the CPU
# fallback as on tensor cores; each mode within its tolerance of
# onnxruntime's f32 (docs/GPU.md, "Precision", has the errors per model).
for precision in bf16 tf32; do
  echo "=== [gpu-e2e-$precision] every op on the GPU, --gpu-precision=$precision"
  rc=0
  out=$(.venv/bin/python test/e2e/run_e2e.py --tandemc build/bin/tandemc \
    --tandem-run build/bin/tandem-run --work build/gpu-e2e-$precision \
    --models build/models --set "$MODEL_SET" --gpu all \
    --gpu-precision $precision --devices emulated,cpu \
    mlp conv_bn_relu resnet18 mobilenet_v2_bn transformer_encoder lstm_tagger \
    unet_small gpt_block bert_block_dynamic) || rc=$?
  echo "$out"
  add_counts "$rc" "$out"
done
# Now that build/models exists, the lit tests that read the torch models
# are no longer unsupported: ptxas (sm_80, sm_90) on every GPU kernel of
# the models, MobileNetV3-small's NHWC row kernels, and the BERT block's
# attention at long sequences.
rc=0
out=$(/usr/lib/llvm-22/bin/lit -v build/test/Codegen/GPU/ptxas-torch-models.test \
  build/test/Codegen/GPU/ptxas-nhwc-se.test \
  build/test/Codegen/GPU/attention-long.test 2>&1) || rc=$?
echo "$out" | grep -E "^(PASS|FAIL|UNSUPPORTED):"
passed=$(echo "$out" | grep -c "^PASS:" || true)
failed=$(echo "$out" | grep -c "^FAIL:" || true)
skipped=$(echo "$out" | grep -c "^UNSUPPORTED:" || true)
out="torch-model-lit: $passed passed, $failed failed"
[ "$skipped" -gt 0 ] && out="$out ($skipped unsupported: no ptxas)"
echo "$out"
add_counts "$rc" "$out"

# Install: `cmake --install` into a scratch prefix, then examples/deploy
# built against it with find_package(Tandem) + tandem_add_model() and its
# top-5 checked against onnxruntime, the installed tandem-run on an .onnx,
# and tandem_add_model's errors.
echo "=== [install] cmake --install + examples/deploy via find_package(Tandem)"
rc=0
out=$(bash test/install/run.sh build build/install-test 2>&1) || rc=$?
echo "$out"
add_counts "$rc" "$out"

# The tandem Python package (python/): pip-installed into a scratch
# directory, then its pytest tests against onnxruntime, bad inputs, threads,
# run_async, and Ray Serve on a local loopback-only Ray instance (2
# replicas, a bounded burst, killed replicas replaced); about 40 s.
echo "=== [python] pip install ./python + pytest python/tests"
rc=0
out=$(bash python/tests/run.sh build build/python-tests 2>&1) || rc=$?
echo "$out"
add_counts "$rc" "$out"

# The libFuzzer targets (ONNX importer, .npy reader, .mlir parse + verify,
# model descriptors), each for its share of the budget (scripts/fuzz.sh).
echo "=== [fuzz] onnx-import, npy, mlir-parse, model-descriptor fuzzers, ${FUZZ_SECONDS:-60} s budget"
rc=0
out=$(bash scripts/fuzz.sh "${FUZZ_SECONDS:-60}" 2>&1) || rc=$?
# The whole report when it fails, the statistics when it passes.
printf '%s\n' "$out" | tail -n "$([ "$rc" = 0 ] && echo 8 || echo 60)"
add_counts "$rc" "$out"

if [ "$SANITIZERS" = 1 ]; then
  run_suite asan+ubsan build-asan -DTANDEM_ENABLE_SANITIZERS=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi

if [ -n "$failures" ]; then
  echo "=== failures"
  printf '%s' "$failures"
fi
echo "tests: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
