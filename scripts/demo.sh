#!/usr/bin/env bash
# Tandem's main job, end to end, on a fresh machine or an existing checkout:
# install what is missing, build, and run the compiler on an example.
#
# The ONNX importer, codegen and runtime are not built yet, so today this runs
# tandem-opt on a ResNet block written in the tandem dialect: it verifies the
# IR, canonicalises it and places every op. It grows into "compile an example
# model, link it into a binary, run it" as those stages land.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Let clones at other paths (CI) share this machine's compiler cache.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1

bash scripts/setup.sh
bash scripts/configure.sh build
ninja -C build tandem-opt

echo "=== tandem-opt examples/resnet_block.mlir -canonicalize -tandem-assign-default-device"
./build/bin/tandem-opt examples/resnet_block.mlir \
  -canonicalize -tandem-assign-default-device \
  --mlir-print-debuginfo
