#!/usr/bin/env bash
# Configures a Tandem build directory (once; later calls only re-run CMake if
# the arguments change).
#   scripts/configure.sh BUILD_DIR [extra cmake args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$1"
shift
args=(-G Ninja -S "$ROOT" -B "$dir"
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
  -DLLVM_USE_LINKER=lld
  "$@")
stamp="$dir/.tandem-configure-args"
if [ -f "$dir/build.ninja" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${args[*]}" ]; then
  exit 0
fi
cmake "${args[@]}"
echo "${args[*]}" > "$stamp"
