#!/usr/bin/env bash
# Tandem's main job, end to end, on a fresh machine or an existing checkout:
# install what is missing, build, and run the compiler on an example.
#
# It compiles a small ONNX convnet with tandemc to optimised, placed, fused
# and partitioned tandem IR (for the CPU, then for a CPU + GPU target with its
# placement report), runs tandem-opt on a ResNet block written in the tandem
# dialect, and then does the main job: compiles the convnet to an object file
# and C header, links it into examples/deploy/main.c with the runtime, runs
# it (top-5), and checks the same model against onnxruntime with tandem-run.
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

# The main job: compile the convnet to an object file and its C header, link
# it into a small C program (examples/deploy) with the runtime, and run it.
echo "=== tandemc build/demo/conv_block.onnx -o build/demo/model.o (+ model.h)"
./build/bin/tandemc build/demo/conv_block.onnx --name model \
  -o build/demo/model.o --memory-report=-
cc -O2 examples/deploy/main.c build/demo/model.o -Ibuild/demo -Iruntime/include \
  build/lib/libtandem_runtime.a -lstdc++ -lpthread -lm -o build/demo/deploy
echo "=== build/demo/deploy"
./build/demo/deploy

# The same model as a shared library under tandem-run, checked against
# onnxruntime and timed.
./build/bin/tandemc build/demo/conv_block.onnx --emit=shared -o build/demo/model.so
.venv/bin/python - <<'PY'
import numpy as np, onnxruntime as ort
x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
np.save("build/demo/x.npy", x)
ref = ort.InferenceSession("build/demo/conv_block.onnx").run(None, {"x": x})[0]
np.save("build/demo/ref.npy", ref)
PY
echo "=== tandem-run build/demo/model.so --compare (onnxruntime) --bench 100"
./build/bin/tandem-run build/demo/model.so --input build/demo/x.npy \
  --compare build/demo/ref.npy --rtol 1e-4 --atol 1e-5 && echo "matches onnxruntime"
./build/bin/tandem-run build/demo/model.so --input build/demo/x.npy --bench 100 --threads 1
