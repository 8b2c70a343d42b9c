#!/usr/bin/env bash
# Tandem's main job, end to end, on a fresh machine or an existing checkout:
# install what is missing, build, and run the compiler on an example.
#
# It compiles a small ONNX convnet with tandemc to optimised, placed, fused
# and partitioned tandem IR (for the CPU, then for a CPU + GPU target with its
# placement report), runs tandem-opt on a ResNet block written in the tandem
# dialect, and then does the main job: installs Tandem into build/demo/install,
# builds examples/deploy against it with CMake (find_package(Tandem) +
# tandem_add_model: the convnet compiled to an object file and C header and
# linked with the runtime), runs it and checks its top-5 against
# onnxruntime, and checks the same model with tandem-run, which compiles the
# .onnx itself.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Let clones at other paths (CI) share this machine's compiler cache.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1

bash scripts/setup.sh
bash scripts/configure.sh build
ninja -C build tandem-opt tandemc tandem-run tandem_runtime_static tandem_runtime_shared

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

# The main job: install Tandem into a prefix, and build examples/deploy (a
# small C program) against it with CMake: find_package(Tandem) and
# tandem_add_model() compile the convnet to an object file and C header at
# build time and link it with the runtime. Run it on an input whose
# onnxruntime result is known, and check its top-5.
echo "=== cmake --install build --prefix build/demo/install"
cmake --install build --prefix build/demo/install > build/demo/install.log
echo "=== examples/deploy: find_package(Tandem) + tandem_add_model(conv_block.onnx)"
cmake -S examples/deploy -B build/demo/deploy -G Ninja \
  -DCMAKE_PREFIX_PATH="$ROOT/build/demo/install" \
  -DDEPLOY_MODEL="$ROOT/build/demo/conv_block.onnx" \
  -DDEPLOY_TANDEMC_ARGS=--memory-report=- > build/demo/deploy.configure.log
cmake --build build/demo/deploy
.venv/bin/python test/e2e/onnx_reference.py build/demo/conv_block.onnx \
  build/demo/ref --name conv_block > /dev/null
echo "=== build/demo/deploy/deploy conv_block.in0.bin (top-5 vs onnxruntime)"
.venv/bin/python test/e2e/check_top5.py build/demo/ref/conv_block.ref0.npy \
  -- build/demo/deploy/deploy build/demo/ref/conv_block.in0.bin

# tandem-run compiles the .onnx itself (tandemc --emit=shared in a temporary
# directory) and checks it against onnxruntime; then the same model as a
# shared library, timed.
echo "=== tandem-run build/demo/conv_block.onnx --compare (onnxruntime)"
./build/bin/tandem-run build/demo/conv_block.onnx \
  --input build/demo/ref/conv_block.in0.npy \
  --compare build/demo/ref/conv_block.ref0.npy --rtol 1e-4 --atol 1e-5 &&
  echo "matches onnxruntime"
./build/bin/tandemc build/demo/conv_block.onnx --emit=shared -o build/demo/model.so
echo "=== tandem-run build/demo/model.so --bench 100"
./build/bin/tandem-run build/demo/model.so --random --bench 100 --threads 1
