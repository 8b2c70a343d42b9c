//===- DriverOptionsTest.cpp - the driver's option parsing helpers --------===//

#include "compiler/Driver/Compiler.h"

#include "gtest/gtest.h"

using namespace mlir::tandem;

namespace {

TEST(DriverOptions, ParsesShapes) {
  EXPECT_EQ(parseShape("1x3x224x224"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(parseShape("7"), (std::vector<int64_t>{7}));
  EXPECT_EQ(parseShape(""), (std::vector<int64_t>{}));
  EXPECT_FALSE(parseShape("1x"));
  EXPECT_FALSE(parseShape("1x-3"));
  EXPECT_FALSE(parseShape("axb"));
  EXPECT_FALSE(parseShape("1,3"));
}

TEST(DriverOptions, PhasesRoundTripInOrder) {
  const char *names[] = {"import",      "graph",      "placed",  "fused",
                         "partitioned", "bufferized", "kernels", "lowered"};
  std::optional<Phase> previous;
  for (const char *name : names) {
    std::optional<Phase> phase = parsePhase(name);
    ASSERT_TRUE(phase) << name;
    EXPECT_EQ(phaseName(*phase), name);
    if (previous) {
      EXPECT_LT(*previous, *phase) << "phases must be ordered";
    }
    previous = phase;
  }
  EXPECT_FALSE(parsePhase("codegen"));
}

TEST(DriverOptions, EmitKindsRoundTrip) {
  for (const char *name :
       {"mlir", "llvm", "ptx", "asm", "obj", "header", "shared"}) {
    std::optional<EmitKind> kind = parseEmitKind(name);
    ASSERT_TRUE(kind) << name;
    EXPECT_EQ(emitKindName(*kind), name);
  }
  EXPECT_FALSE(parseEmitKind("exe"));
}

TEST(DriverOptions, ValidatesFusionOptions) {
  FusionOptions options;
  EXPECT_EQ(validateFusionOptions(options), "");
  options.disableKinds = {"loop", "multi_output"};
  options.disableNodes = {"/layer1/*", "conv{1,2}"};
  EXPECT_EQ(validateFusionOptions(options), "");
  options.disableKinds.push_back("kernel");
  EXPECT_EQ(validateFusionOptions(options),
            "unknown fusion kind 'kernel' in --disable-fusion (expected "
            "loop, input, output or multi_output)");
  options.disableKinds.pop_back();
  options.disableNodes.push_back("conv[");
  EXPECT_NE(validateFusionOptions(options).find("invalid node glob 'conv['"),
            std::string::npos);
}

/// The plan checkCompilerOptions derives, or its error.
std::optional<CompilePlan> check(const CompilerOptions &options,
                                 std::string &error) {
  error.clear();
  return checkCompilerOptions(options, error);
}

TEST(DriverOptions, PlansThePhasesOfEachOutput) {
  CompilerOptions options;
  std::string error;
  std::optional<CompilePlan> plan = check(options, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->last, Phase::Lowered);
  EXPECT_TRUE(plan->codegen);
  EXPECT_FALSE(plan->ptx);
  EXPECT_TRUE(plan->kernelArchs.empty());

  options.emit = EmitKind::MLIR;
  plan = check(options, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->last, Phase::Partitioned);
  EXPECT_FALSE(plan->codegen);
  options.compileTo = Phase::Fused;
  EXPECT_EQ(check(options, error)->last, Phase::Fused);

  options.emit = EmitKind::PTX;
  options.compileTo.reset();
  plan = check(options, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->last, Phase::Kernels);
  EXPECT_TRUE(plan->ptx);
  EXPECT_FALSE(plan->codegen);
}

TEST(DriverOptions, KernelArchsComeFromTheTargetsThenCudaArch) {
  CompilerOptions options;
  options.targets = {"cpu", "gpu:a100", "gpu:h100"};
  options.cudaTarget.extraArchs = {"sm_90", "sm_89"};
  std::string error;
  std::optional<CompilePlan> plan = check(options, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->kernelArchs,
            (std::vector<std::string>{"sm_80", "sm_90", "sm_89"}));
}

TEST(DriverOptions, RejectsBadOptionsBeforeAnyWork) {
  std::string error;
  CompilerOptions options;
  options.name = "1abc";
  EXPECT_FALSE(check(options, error));
  EXPECT_EQ(error, "--name '1abc' must start with a letter (it prefixes the C "
                   "symbols of the model)");

  options = CompilerOptions();
  options.fusion.disableKinds = {"kernel"};
  EXPECT_FALSE(check(options, error));
  EXPECT_NE(error.find("unknown fusion kind 'kernel'"), std::string::npos);

  options = CompilerOptions();
  options.cudaTarget.extraArchs = {"sm_91"};
  EXPECT_FALSE(check(options, error));
  EXPECT_NE(error.find("--cuda-arch: unknown CUDA architecture 'sm_91'"),
            std::string::npos);

  options = CompilerOptions();
  options.targets = {"cpu", "gpu:sm_75"};
  EXPECT_FALSE(check(options, error));
  EXPECT_NE(error.find("--target: unknown GPU 'sm_75'"), std::string::npos);

  options = CompilerOptions();
  options.compileTo = Phase::Fused;
  EXPECT_FALSE(check(options, error));
  EXPECT_EQ(error, "--emit=obj needs the whole pipeline; drop --compile-to or "
                   "use --emit=mlir");

  options.emit = EmitKind::PTX;
  EXPECT_FALSE(check(options, error));
  EXPECT_EQ(error, "--emit=ptx writes the images of the kernels phase; drop "
                   "--compile-to");

  // The memory report needs the signature that code generation reads.
  options = CompilerOptions();
  options.emit = EmitKind::MLIR;
  options.memoryReport = "-";
  EXPECT_FALSE(check(options, error));
  EXPECT_NE(error.find("--memory-report needs code generation"),
            std::string::npos);
  options.compileTo = Phase::Bufferized;
  EXPECT_TRUE(check(options, error)) << error;
}

} // namespace
