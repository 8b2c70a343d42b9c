//===- DeviceProgramTest.cpp - the artifact of a model with GPU work ------===//
//
// Runs the host schedule and CPU pipelines on a hand-written bufferised
// model in the contract form of docs/GPU.md, emits the object, and checks
// the device program it carries: in the LLVM IR, and by linking the object
// with a C host (Inputs/device_program_harness.c) that plays the CPU
// fallback and checks the numbers the model computes.
//
//===----------------------------------------------------------------------===//

#include "codegen/Artifact/ObjectEmitter.h"
#include "codegen/CPU/CPUPipeline.h"
#include "codegen/HostSchedule/Passes.h"
#include "compiler/CompilerDialects.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "test/unit/LinkAndRun.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// y = |-(x + w)|: x uploaded, two kernels on the GPU (one reads the weight
/// w), the result downloaded and finished by a CPU partition.
constexpr const char *kModel = R"mlir(
memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @k_add(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) attributes {tandem.kernel} {
  linalg.add ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)
  return
}
func.func private @k_neg(%a: memref<4xf32>, %b: memref<4xf32>) attributes {tandem.kernel} {
  linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
func.func private @m_p0_gpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
  %w = memref.get_global @__constant_4xf32 : memref<4xf32>
  %t = memref.alloc() : memref<4xf32>
  call @k_add(%a, %w, %t) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  call @k_neg(%t, %out) {tandem.launch_dims = array<i64: 1, 1, 1, 4, 1, 1>} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func private @m_p1_cpu0(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {tandem.device = #tandem.device<"/device:CPU:0">, tandem.partition} {
  linalg.abs ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) {
  %xd = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
  %yd = memref.alloc() : memref<4xf32>
  call @m_p0_gpu0(%xd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
  %h = memref.alloc() : memref<4xf32>
  tandem_exec.transfer %yd, %h : memref<4xf32>, memref<4xf32> from #tandem.device<"/device:GPU:0"> to #tandem.device<"/device:CPU:0">
  call @m_p1_cpu0(%h, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
)mlir";

/// The same interface with everything on the host.
constexpr const char *kCPUModel = R"mlir(
func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.abs ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
)mlir";

class DeviceProgramTest : public ::testing::Test {
protected:
  DeviceProgramTest() {
    // What tandemc registers: the pipelines below must run on it.
    DialectRegistry registry;
    registerCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source`, runs the host schedule, the host arena plan and the
  /// CPU lowering, and emits the result as `kind`.
  std::string compile(const char *source, ObjectKind kind,
                      const ObjectOptions &options) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return "";
    PassManager pm(&context);
    buildHostSchedulePipeline(pm);
    pm.addPass(createTandemPlanMemory());
    buildCPULowerToLLVMPipeline(pm);
    ModelSignature signature;
    signature.name = "m";
    signature.inputs = {{"x", TANDEM_F32, {4}}};
    signature.outputs = {{"y", TANDEM_F32, {4}}};
    EXPECT_TRUE(succeeded(pm.run(*module)));
    if (auto func = module->lookupSymbol<LLVM::LLVMFuncOp>("m"))
      if (auto bytes = func->getAttrOfType<IntegerAttr>(
              TandemDialect::getArenaBytesAttrName()))
        signature.arenaBytes = bytes.getInt();
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    EXPECT_TRUE(
        succeeded(emitModelObject(*module, signature, options, kind, os)));
    return buffer.str().str();
  }

  static ObjectOptions withPTX() {
    ObjectOptions options;
    options.deviceImages.push_back({"sm_90", TANDEM_IMAGE_PTX, ".version 8.0"});
    return options;
  }

  MLIRContext context;
};

TEST_F(DeviceProgramTest, DescriptorPointsAtTheDeviceProgram) {
  std::string ir = compile(kModel, ObjectKind::LLVMIR, withPTX());
  // ABI version 4 and the trailing device program pointer.
  EXPECT_NE(ir.find("constant { i32, ptr, i32, i32, ptr, ptr, i64, i64, "
                    "ptr, ptr } { i32 4, ptr @m_model_name"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("ptr @m_device_program }"), std::string::npos);
  // Kernels with their twins, the image, the weight and the partitions.
  EXPECT_NE(ir.find("ptr @k_add__twin, i32 3"), std::string::npos);
  EXPECT_NE(ir.find("ptr @k_neg__twin, i32 2"), std::string::npos);
  EXPECT_NE(ir.find("c\".version 8.0\\00\""), std::string::npos);
  EXPECT_NE(ir.find("ptr @__constant_4xf32, i64 16"), std::string::npos);
  EXPECT_NE(ir.find("c\"m_p0_gpu0\\00\""), std::string::npos);
  EXPECT_NE(ir.find("c\"m_p1_cpu0\\00\""), std::string::npos);
  // The schedule calls the runtime.
  EXPECT_NE(ir.find("call void @tandem_sched_launch("), std::string::npos);
}

TEST_F(DeviceProgramTest, CPUOnlyModelsKeepTheVersion1Layout) {
  std::string ir = compile(kCPUModel, ObjectKind::LLVMIR, withPTX());
  EXPECT_NE(ir.find("constant { i32, ptr, i32, i32, ptr, ptr, i64, i64, "
                    "ptr } { i32 1, ptr @m_model_name"),
            std::string::npos)
      << ir;
  EXPECT_EQ(ir.find("device_program"), std::string::npos);
  EXPECT_EQ(ir.find("tandem_sched_"), std::string::npos);
}

/// Links the object with the C host and runs it: the CPU twins compute the
/// GPU partition's part of the model through the device program's tables.
TEST_F(DeviceProgramTest, RunsOnTheCPUFallback) {
  tandem_test::linkAndRun(compile(kModel, ObjectKind::Object, withPTX()),
                          "device_program_harness.c");
}

} // namespace
