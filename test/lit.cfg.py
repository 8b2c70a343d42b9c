# -*- Python -*-
# lit configuration of Tandem's FileCheck tests. The GoogleTest units form a
# second suite in the build tree (test/unit/lit.site.cfg.py).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Tandem"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tandem_obj_root, "test")
config.excludes = [
    "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "unit", "runtime",
    "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tandem_src_root", config.tandem_src_root))
config.substitutions.append(("%tandem_obj_root", config.tandem_obj_root))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Tandem's tools first, then FileCheck & co from LLVM.
tool_dirs = [config.tandem_tools_dir, config.llvm_tools_dir]
tools = ["tandem-opt", "tandemc", "tandem-run", "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.tandem_tools_dir, append_path=True)

# Tests that build ONNX models or .npy files need the project's Python venv
# with onnx / numpy (scripts/setup.sh creates it).
venv_python = os.path.join(config.tandem_src_root, ".venv", "bin", "python")
if os.path.exists(venv_python):
    import subprocess

    def venv_has(module):
        return subprocess.run([venv_python, "-c", "import " + module],
                              capture_output=True).returncode == 0

    # jax: the benchmark's XLA runtime (bench/setup.sh installs it).
    for module in ("onnx", "numpy", "jax"):
        if venv_has(module):
            config.available_features.add(module)
    if {"onnx", "numpy"} & config.available_features:
        config.substitutions.append(("%venv_python", venv_python))

# Hand-written fixture models (test/runtime/TestModels.c) built as shared
# libraries, for tandem-run.
config.substitutions.append(
    ("%test_models", os.path.join(config.tandem_obj_root, "test", "runtime")))

# Numerics tests JIT-run lowered code with MLIR's runner and its runtime
# utilities (printMemrefF32).
mlir_runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
mlir_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
if os.path.exists(mlir_runner) and os.path.exists(
        os.path.join(mlir_lib_dir, "libmlir_c_runner_utils.so")):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir_runner", mlir_runner))
    config.substitutions.append(("%mlir_lib_dir", mlir_lib_dir))

# The torch-exported model zoo (build/models, made by
# test/models/generate_torch_models.py) is optional.
# Each present model adds the feature `model-NAME`, so a test names (in
# REQUIRES) exactly the models it reads: a partly filled build/models (after
# bench/run.sh, say) makes such a test unsupported, never failed.
models_dir = os.path.join(config.tandem_obj_root, "models")
present = [f[:-len(".onnx")] for f in os.listdir(models_dir)
           if f.endswith(".onnx")] if os.path.isdir(models_dir) else []
if present:
    config.available_features.add("torch-models")
    config.substitutions.append(("%models", models_dir))
for name in present:
    config.available_features.add("model-" + name)

# GPU tests that assemble PTX need the CUDA toolkit, not a GPU.
if config.tandem_ptxas and not config.tandem_ptxas.endswith("-NOTFOUND"):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.tandem_ptxas))

if config.tandem_sanitizers:
    config.available_features.add("sanitizers")
    # MLIR's global registries are intentionally never freed. Our code is
    # instrumented but libMLIR.so is not, and both inline LLVM's
    # BumpPtrAllocator: instrumented copies poison fresh slabs that the
    # uninstrumented ones then use without unpoisoning. Ignore that manual
    # poisoning; real heap errors are still caught.
    config.environment["ASAN_OPTIONS"] = (
        "detect_leaks=0:allow_user_poisoning=0:abort_on_error=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
