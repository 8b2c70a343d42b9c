//===- GPUCodegenTest.cpp - compileGPUKernels and its device images -------===//

#include "codegen/GPU/GPUPipeline.h"
#include "compiler/CompilerDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// A GPU partition's kernel: a row sum of 300 rows (a ragged last block).
constexpr const char *kKernelModule = R"mlir(
func.func private @rowsum(%a: memref<300x64xf32>, %s: memref<300xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<300x64xf32>) outs(%s : memref<300xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  return
}
)mlir";

class GPUCodegen : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    // What tandemc registers: kernel compilation must run on it.
    registerCompilerDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kKernelModule, context.get());
    ASSERT_TRUE(module);
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

TEST(GPUCodegenOptions, ValidatesArchs) {
  EXPECT_EQ(validateCudaArch("sm_80"), "");
  EXPECT_EQ(validateCudaArch("sm_90a"), "");
  EXPECT_NE(validateCudaArch("sm_91").find("unknown CUDA architecture 'sm_91'"),
            std::string::npos);
  EXPECT_NE(validateCudaArch("90").find("'90'"), std::string::npos);
}

TEST_F(GPUCodegen, OnePTXPerArchAndTheKernelFunctionStays) {
  GPUCodegenOptions options;
  options.archs = {"sm_80", "sm_90"};
  options.useToolkit = false;
  FailureOr<std::vector<DeviceImage>> images =
      compileGPUKernels(*module, options);
  ASSERT_TRUE(succeeded(images));
  ASSERT_EQ(images->size(), 2u);
  for (auto [image, arch] : llvm::zip(*images, options.archs)) {
    EXPECT_EQ(image.arch, arch);
    EXPECT_EQ(image.format, TANDEM_IMAGE_PTX);
    EXPECT_NE(image.bytes.find(".target " + arch), std::string::npos);
    EXPECT_NE(image.bytes.find(".visible .entry rowsum("), std::string::npos);
  }
  // The input module is untouched: the kernel function (the CPU twin's
  // source) is still there and no gpu.module was added.
  EXPECT_TRUE(module->lookupSymbol<func::FuncOp>("rowsum"));
  EXPECT_EQ(module->getBody()->getOperations().size(), 1u);
}

TEST_F(GPUCodegen, CubinsAndFatbinWithTheToolkit) {
  GPUCodegenOptions options;
  options.archs = {"sm_80", "sm_90"};
  if (!llvm::sys::fs::can_execute(options.cudaRoot + "/bin/ptxas") ||
      !llvm::sys::fs::can_execute(options.cudaRoot + "/bin/fatbinary"))
    GTEST_SKIP() << "no CUDA toolkit under " << options.cudaRoot;
  FailureOr<std::vector<DeviceImage>> images =
      compileGPUKernels(*module, options);
  ASSERT_TRUE(succeeded(images));
  // PTX per arch, then a cubin per arch, then one fatbin.
  ASSERT_EQ(images->size(), 5u);
  for (int i = 2; i < 4; ++i) {
    const DeviceImage &cubin = (*images)[i];
    EXPECT_EQ(cubin.format, TANDEM_IMAGE_CUBIN);
    EXPECT_EQ(cubin.arch, options.archs[i - 2]);
    EXPECT_EQ(cubin.bytes.substr(0, 4), "\x7f"
                                        "ELF");
  }
  const DeviceImage &fatbin = (*images)[4];
  EXPECT_EQ(fatbin.format, TANDEM_IMAGE_FATBIN);
  EXPECT_EQ(fatbin.arch, "sm_80,sm_90");
  // The fatbin magic 0xBA55ED50, little-endian.
  EXPECT_EQ(fatbin.bytes.substr(0, 4), std::string("\x50\xed\x55\xba", 4));
}

} // namespace
