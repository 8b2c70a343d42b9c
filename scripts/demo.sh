#!/usr/bin/env bash
# Tandem's main job, end to end, on a fresh machine or an existing checkout:
# install what is missing, build, and run the compiler on an example.
#
# Codegen and the runtime are not built yet, so today this compiles a small
# ONNX convnet with tandemc to optimised, placed, fused and partitioned tandem
# IR (for the CPU, then for a CPU + GPU target with its placement report), and runs
# tandem-opt on a ResNet block written in the tandem dialect. It grows into
# "compile an example model, link it into a binary, run it" as those stages
# land.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Let clones at other paths (CI) share this machine's compiler cache.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1

bash scripts/setup.sh
bash scripts/configure.sh build
ninja -C build tandem-opt tandemc

# A small convnet (conv/bn/relu, pooling, depthwise conv, ReLU6, HardSwish,
# classifier) exported as ONNX with random weights.
mkdir -p build/demo
.venv/bin/python test/tools/tandemc/Inputs/make_models.py build/demo conv_block
echo "=== tandemc build/demo/conv_block.onnx --emit=mlir --time-phases"
./build/bin/tandemc build/demo/conv_block.onnx --emit=mlir \
  -o build/demo/conv_block.mlir --time-phases \
  --fusion-report=build/demo/conv_block.fusion.json
grep -c "tandem.fusion " build/demo/conv_block.mlir | sed 's/^/kernels (fusions): /'
sed -n '1,40p' build/demo/conv_block.mlir | cut -c1-160

# A host + H100 build (Graphviz drawing alongside): the placement report
# explains where each op runs and why. The tiny convnet stays on the host (a
# launch and two copies cost more than the GPU saves); an MLP on a batch of
# 256 moves to the GPU with one copy in and one out.
.venv/bin/python test/tools/tandemc/Inputs/make_models.py build/demo mlp
for model in "conv_block" "mlp --input-shape x=256x784"; do
  echo "=== tandemc build/demo/${model%% *}.onnx ${model#* } --target=cpu,gpu:sm_90 --placement-report=-"
  # shellcheck disable=SC2086
  ./build/bin/tandemc build/demo/${model%% *}.onnx $([ "$model" = "${model%% *}" ] || echo "${model#* }") \
    --emit=mlir --target=cpu,gpu:sm_90 --cpu-model=generic --placement-report=- \
    --dot-graph="build/demo/${model%% *}.dot" -o "build/demo/${model%% *}.gpu.mlir" |
    cut -c1-120
  sed -n '1,6p' "build/demo/${model%% *}.gpu.mlir" | cut -c1-160
done


echo "=== tandem-opt examples/resnet_block.mlir -canonicalize -tandem-assign-default-device"
./build/bin/tandem-opt examples/resnet_block.mlir \
  -canonicalize -tandem-assign-default-device \
  --mlir-print-debuginfo
