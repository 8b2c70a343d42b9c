#!/usr/bin/env bash
# The install test: installs a build into a temporary prefix and uses it the
# way a user would.
#
#   test/install/run.sh BUILD_DIR WORK_DIR
#
# Checks that `cmake --install` lays out the tools, the runtime and the CMake
# package; that the installed tandemc finds its libraries; that
# examples/deploy configures against the package with find_package(Tandem)
# and tandem_add_model(), builds, and prints the same top-5 as onnxruntime
# on a small convnet; that the build reruns tandemc only when the model
# changes; that the installed tandem-run compiles and runs the .onnx itself;
# that Tandem::tandem_runtime_shared links; and that tandem_add_model's
# misuse fails with a clear message. Needs cmake, ninja, a C compiler and
# the venv (scripts/setup.sh). Ends with "install: N passed, M failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ $# != 2 ]; then
  echo "usage: $0 BUILD_DIR WORK_DIR" >&2
  exit 2
fi
build="$(cd "$1" && pwd)"
work="$2"
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
prefix="$work/prefix"
python="$ROOT/.venv/bin/python"
model="$work/models/conv_block.onnx"
unset TANDEMC

passed=0
failed=0
# check NAME FUNCTION: runs FUNCTION with its output in WORK/NAME.log.
check() {
  local name="$1" log="$work/$1.log"
  if "$2" >"$log" 2>&1; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (log: $log)"
    tail -n 40 "$log" | sed 's/^/  | /'
    failed=$((failed + 1))
  fi
}

# expect_in FILE TEXT: FILE contains TEXT (a fixed string; runs of white
# space, line breaks included, compare as one space: CMake wraps messages).
expect_in() {
  if ! tr -s ' \n' '  ' <"$1" | tr -s ' ' | grep -qF -- "$2"; then
    echo "expected '$2' in $1"
    return 1
  fi
}

installed_layout() {
  cmake --install "$build" --prefix "$prefix" || return 1
  local missing=0
  for f in bin/tandemc bin/tandem-run bin/tandem-opt \
    lib/libtandem_runtime.a lib/libtandem_runtime.so \
    include/tandem/abi.h include/tandem/runtime.h include/tandem/winograd.h \
    lib/cmake/Tandem/TandemConfig.cmake \
    lib/cmake/Tandem/TandemConfigVersion.cmake \
    lib/cmake/Tandem/TandemTargets.cmake \
    lib/cmake/Tandem/TandemAddModel.cmake; do
    if [ -e "$prefix/$f" ]; then echo "installed $f"; else
      echo "missing $f"
      missing=1
    fi
  done
  expect_in "$prefix/lib/cmake/Tandem/TandemTargets.cmake" \
    "add_library(Tandem::tandem_runtime STATIC IMPORTED)" || return 1
  expect_in "$prefix/lib/cmake/Tandem/TandemTargets.cmake" \
    "add_library(Tandem::tandem_runtime_shared SHARED IMPORTED)" || return 1
  expect_in "$prefix/lib/cmake/Tandem/TandemTargets.cmake" \
    "add_executable(Tandem::tandemc IMPORTED)" || return 1
  return "$missing"
}

# The installed tools resolve every library without the build tree or
# LD_LIBRARY_PATH, and tandemc runs.
installed_tandemc_runs() {
  local tool
  for tool in tandemc tandem-opt tandem-run; do
    env -u LD_LIBRARY_PATH ldd "$prefix/bin/$tool" || return 1
    if env -u LD_LIBRARY_PATH ldd "$prefix/bin/$tool" | grep -q "not found"; then
      echo "$tool: a library is not found"
      return 1
    fi
    if readelf -d "$prefix/bin/$tool" | grep -E "R(UN)?PATH" | grep -qF "$build"; then
      echo "$tool: its RPATH points into the build tree $build"
      return 1
    fi
  done
  env -u LD_LIBRARY_PATH "$prefix/bin/tandemc" --list-onnx-ops >"$work/ops.txt" || return 1
  grep -qx "Conv" "$work/ops.txt"
}

# examples/deploy against the package, with a model name other than the
# default, compared with onnxruntime.
deploy_top5() {
  cmake -S "$ROOT/examples/deploy" -B "$work/deploy" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DDEPLOY_MODEL="$model" \
    -DDEPLOY_MODEL_NAME=convnet || return 1
  cmake --build "$work/deploy" || return 1
  expect_in "$work/deploy/deploy_model/convnet.h" "convnet_descriptor" || return 1
  "$python" "$ROOT/test/e2e/check_top5.py" "$work/ref/conv_block.ref0.npy" \
    -- "$work/deploy/deploy" "$work/ref/conv_block.in0.bin"
}

# tandemc reruns when the model changes, and only then.
deploy_rebuilds() {
  cmake --build "$work/deploy" >"$work/again.txt" || return 1
  cat "$work/again.txt"
  expect_in "$work/again.txt" "no work to do" || return 1
  touch "$model"
  cmake --build "$work/deploy" >"$work/touched.txt" || return 1
  cat "$work/touched.txt"
  expect_in "$work/touched.txt" "Compiling model" || return 1
  expect_in "$work/touched.txt" "Linking C executable deploy"
}

# The installed tandem-run compiles the .onnx with the tandemc next to it.
tandem_run_onnx() {
  "$prefix/bin/tandem-run" "$model" --input "$work/ref/conv_block.in0.npy" \
    --compare "$work/ref/conv_block.ref0.npy" --rtol 1e-4 --atol 1e-5 \
    >"$work/run.txt" || return 1
  cat "$work/run.txt"
  expect_in "$work/run.txt" "output 'y': max abs error"
}

shared_runtime() {
  cmake -S "$ROOT/test/install/consumer" -B "$work/shared" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DCASE=shared || return 1
  cmake --build "$work/shared" || return 1
  ldd "$work/shared/use_shared" | grep -F "$prefix/lib/libtandem_runtime.so" ||
    return 1
  "$work/shared/use_shared" >"$work/shared.txt" || return 1
  cat "$work/shared.txt"
  # The installed header's ABI version, as abi.h in the source tree says.
  local abi
  abi=$(sed -n 's/^#define TANDEM_ABI_VERSION \([0-9][0-9]*\)$/\1/p' \
    "$ROOT/runtime/include/tandem/abi.h")
  expect_in "$work/shared.txt" "ABI $abi: f32 is 4 bytes"
}

# configure_fails CASE TEXT: configuring the consumer with CASE fails and
# says TEXT.
configure_fails() {
  local out="$work/case-$1.txt"
  if cmake -S "$ROOT/test/install/consumer" -B "$work/case-$1" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DCASE="$1" -DMODEL="$model" >"$out" 2>&1; then
    cat "$out"
    echo "configuring CASE=$1 succeeded; expected an error"
    return 1
  fi
  cat "$out"
  expect_in "$out" "$2"
}

add_model_errors() {
  configure_fails no-model "tandem_add_model(net): MODEL is required" &&
    configure_fails missing-file \
      "tandem_add_model(net): MODEL file '$ROOT/test/install/consumer/no/such/model.onnx' does not exist" &&
    configure_fails not-a-model "must be a .onnx or .mlir file" &&
    configure_fails bad-name "tandem_add_model(net): NAME '3d-net' is not a C identifier"
}

# A small convnet (conv, BN, pooling, depthwise conv, ReLU6, HardSwish,
# classifier) and its onnxruntime reference.
setup_model() {
  "$python" "$ROOT/test/tools/tandemc/Inputs/make_models.py" "$work/models" \
    conv_block &&
    "$python" "$ROOT/test/e2e/onnx_reference.py" "$model" "$work/ref" \
      --name conv_block
}

check model setup_model
check installed-layout installed_layout
check installed-tools-run installed_tandemc_runs
check deploy-top5-vs-onnxruntime deploy_top5
check deploy-rebuilds-on-model-change deploy_rebuilds
check installed-tandem-run-onnx tandem_run_onnx
check shared-runtime-target shared_runtime
check tandem-add-model-errors add_model_errors
echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
